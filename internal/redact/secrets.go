package redact

import (
	"encoding/base64"
	"net"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// Secrets lists every substring of one endpoint that must never appear
// in an error text or a log. rawURL is the configured URL, http(s) or
// ws(s), and u its parse; headerValues are the values of the configured
// headers and of the Authorization header built from u's user info.
//
// The values are those a server or the runtime can echo: the URL whole,
// its user info (whole, user, password), host (with and without port,
// unless an IP address: it carries no key; a DNS error quotes the host
// name, and several providers put the key in it), path (whole and each
// segment), query (whole, each pair, each value, and each key that has no
// value) and fragment, each in its raw and its decoded form; and each
// header value whole and each token of it (split at white space and ",;=",
// quotes trimmed), except authentication scheme names, plus the user and
// password in a Basic token. Each value of minSecretLen bytes or more is
// listed with its encodings (encodings).
func Secrets(rawURL string, u *url.URL, headerValues []string) *Set {
	var vals []string
	add := func(v ...string) { vals = append(vals, v...) }

	add(rawURL, u.String(), u.RequestURI())
	if u.User != nil {
		tu := *u
		tu.User = nil
		add(tu.String())
		pass, _ := u.User.Password()
		add(u.User.String(), u.User.Username(), pass, u.User.Username()+":"+pass)
	}
	userinfo, host := rawAuthority(rawURL)
	add(userinfo)
	add(strings.Split(userinfo, ":")...)
	if net.ParseIP(u.Hostname()) == nil {
		add(host, u.Host, u.Hostname(), strings.ToLower(u.Host), strings.ToLower(u.Hostname()))
	}

	add(u.Path, u.RawPath, u.EscapedPath())
	add(strings.Split(u.Path, "/")...)
	add(strings.Split(u.EscapedPath(), "/")...)

	add(u.RawQuery)
	for pair := range strings.FieldsFuncSeq(u.RawQuery, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(pair, "=")
		add(pair, v)
		if v == "" {
			add(k)
		}
	}
	add(u.Fragment, u.EscapedFragment())

	for _, h := range headerValues {
		add(h)
		add(headerTokens(h)...)
	}

	// Every value also in its decoded forms: the raw ones above may be
	// escaped, and a server may echo them decoded.
	for _, v := range slices.Clone(vals) {
		if d, err := url.PathUnescape(v); err == nil {
			add(d)
		}
		if d, err := url.QueryUnescape(v); err == nil {
			add(d)
		}
	}

	var out []string
	for _, v := range vals {
		if len(v) >= minSecretLen {
			out = append(out, encodings(v)...)
		}
	}
	return newSet(out)
}

// rawAuthority returns the user info and host of rawURL as written,
// before url.Parse decodes them; "" when rawURL has no authority.
func rawAuthority(rawURL string) (userinfo, host string) {
	_, rest, ok := strings.Cut(rawURL, "://")
	if !ok {
		return "", ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		return rest[:i], rest[i+1:]
	}
	return "", rest
}

// headerTokens splits a header value into the tokens a server may echo
// alone: at white space and ",;=", with surrounding quotes trimmed. Scheme
// names (Bearer, Basic, ...) are not secrets and are left out; the token
// after Basic is also decoded into "user:password", user and password.
func headerTokens(v string) []string {
	var out []string
	basic := false
	for tok := range strings.FieldsFuncSeq(v, func(r rune) bool {
		return r == ' ' || r == '\t' || r == ',' || r == ';' || r == '='
	}) {
		tok = strings.Trim(tok, `"'`)
		if isAuthScheme(tok) {
			basic = strings.EqualFold(tok, "basic")
			continue
		}
		out = append(out, tok)
		if basic {
			if d, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(tok, "=")); err == nil && utf8.Valid(d) {
				user, pass, _ := strings.Cut(string(d), ":")
				out = append(out, string(d), user, pass)
			}
		}
		basic = false
	}
	return out
}

// isAuthScheme reports whether word names an HTTP authentication scheme:
// those of the IANA registry, and the unregistered Token, ApiKey and NTLM.
func isAuthScheme(word string) bool {
	switch strings.ToLower(word) {
	case "basic", "bearer", "digest", "token", "apikey", "negotiate", "ntlm", "hoba", "mutual",
		"oauth", "dpop", "gnap", "privatetoken", "concealed", "vapid", "scram-sha-1", "scram-sha-256":
		return true
	}
	return false
}
