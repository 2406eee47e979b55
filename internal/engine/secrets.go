package engine

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/solroute/solroute/transport"
)

// minSecretLen is the shortest secret redacted: shorter values (a "/"
// path, a "1" header) would shred messages and protect nothing. It applies
// to each value before it is encoded.
const minSecretLen = 3

// minBase64Core is the shortest run of base64 characters redacted for a
// secret met inside a longer base64 text at an offset that is not a
// multiple of 3 (see base64Forms): shorter runs match too much.
const minBase64Core = 8

// redacted replaces a secret in an error text.
const redacted = "[redacted]"

// secretSet is the substrings of one endpoint that must never appear in
// an error text.
type secretSet struct {
	// all holds them longest first, so that a longer secret is replaced
	// before a part of it.
	all []string
	// probes are those that contain no other: a text holds a secret only
	// if it holds a probe, so a text without one is returned after
	// len(probes) scans instead of len(all).
	probes []string
}

// newSecretSet sorts and deduplicates secrets and finds the probes.
func newSecretSet(secrets []string) *secretSet {
	slices.SortFunc(secrets, func(a, b string) int {
		if c := cmp.Compare(len(b), len(a)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	all := slices.Compact(secrets)
	var probes []string
	for i, s := range all {
		if !slices.ContainsFunc(all[i+1:], func(o string) bool { return len(o) < len(s) && strings.Contains(s, o) }) {
			probes = append(probes, s)
		}
	}
	return &secretSet{all: all, probes: probes}
}

// redact replaces every secret in msg with "[redacted]".
func (ss *secretSet) redact(msg string) string {
	if !slices.ContainsFunc(ss.probes, func(p string) bool { return strings.Contains(msg, p) }) {
		return msg
	}
	for _, s := range ss.all {
		if strings.Contains(msg, s) {
			msg = strings.ReplaceAll(msg, s, redacted)
		}
	}
	return msg
}

// secretsOf lists every substring that must never appear in an error text.
// rawURL is the configured URL and u its parse; headerValues are the
// values of the configured headers and of the Authorization header built
// from u's user info.
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
func secretsOf(rawURL string, u *url.URL, headerValues []string) *secretSet {
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
	return newSecretSet(out)
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

// encodings returns s and every form of it a server or a runtime can
// echo: URL-escaped (query and path), JSON-escaped (with and without "<>&"
// escaped as \u003c, "/" as "\/" and non-ASCII as \uXXXX) and base64
// (see base64Forms).
func encodings(s string) []string {
	out := []string{s, url.QueryEscape(s), url.PathEscape(s)}
	for _, html := range []bool{true, false} {
		j := jsonEscape(s, html)
		for _, v := range []string{j, asciiJSON(j)} {
			out = append(out, v, strings.ReplaceAll(v, "/", `\/`))
		}
	}
	return append(out, base64Forms(s)...)
}

// jsonEscape returns s as encoding/json writes it inside a string literal,
// with or without HTML escaping.
func jsonEscape(s string, html bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	_ = enc.Encode(s) // a string always encodes
	j := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	return string(j[1 : len(j)-1])
}

// asciiJSON escapes every non-ASCII rune of the JSON string body j as
// \uXXXX (a surrogate pair beyond the BMP), as Python and PHP do.
func asciiJSON(j string) string {
	var b strings.Builder
	for _, r := range j {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// base64Forms returns s in standard and URL base64, padded and not, and
// the parts of its encoding that appear whatever precedes it: base64 codes
// 3 bytes as 4 characters, so s inside a longer encoded text (a whole URL,
// a "user:password") is coded differently after 1 or 2 bytes of other
// data. For each offset, the characters that code only s's bytes (all
// whole 3-byte groups after its first 0, 1 or 2 bytes) are listed when at
// least minBase64Core long. Up to 2 bytes at each end of a secret met at
// such an offset stay coded in the characters around "[redacted]".
func base64Forms(s string) []string {
	var out []string
	b := []byte(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		out = append(out, enc.EncodeToString(b), enc.WithPadding(base64.NoPadding).EncodeToString(b))
		for skip := range 3 {
			if skip >= len(b) {
				break
			}
			rest := b[skip:]
			core := enc.EncodeToString(rest[:len(rest)/3*3])
			if len(core) >= minBase64Core {
				out = append(out, core)
			}
		}
	}
	return out
}

// redact removes every secret of ep from msg.
func (ep *endpointClient) redact(msg string) string { return ep.secrets.redact(msg) }

// wrapErr turns an error from net/http, from decoding or from a callback
// into a secret-free attemptError: a *url.Error (which quotes the whole
// URL) is replaced by its inner error, so errors.As still reaches
// *net.OpError, *tls.RecordHeaderError and the like; an *RPCError whose
// message or data holds a secret becomes a redacted copy, so it keeps its
// type; any other error whose text still holds a secret (a *net.DNSError
// naming the host, a callback quoting req.URL) is replaced by its redacted
// text. It runs only when an attempt fails.
func (ep *endpointClient) wrapErr(err error) *attemptError {
	var ue *url.Error
	for errors.As(err, &ue) {
		err = ue.Err
	}
	if re, ok := err.(*transport.RPCError); ok {
		// The server's own words, which may echo the key it was sent (a
		// query value, a header).
		msg, data := ep.redact(re.Message), ep.redact(string(re.Data))
		if msg != re.Message || data != string(re.Data) {
			err = &transport.RPCError{Code: re.Code, Message: msg, Data: json.RawMessage(data)}
		}
	}
	text := err.Error()
	msg := ep.redact(text)
	if msg != text {
		// The error's own text carries a secret: callers could reach it
		// through Unwrap, so keep a redacted copy of a network error (the
		// DNS error naming the host), otherwise only the redacted text.
		if c, ok := ep.redactNet(err); ok && c.Error() == msg {
			err = c
		} else {
			err = errors.New(msg)
		}
	}
	return &attemptError{endpoint: ep.name, msg: trimPrefix(msg), err: err}
}

// redactNet returns a copy of a *net.OpError or *net.DNSError chain with
// secrets redacted from its text fields, so that errors.As still reaches
// them (a *net.DNSError whose IsNotFound tells a missing host name). ok
// is false for any other error in the chain.
func (ep *endpointClient) redactNet(err error) (_ error, ok bool) {
	switch e := err.(type) {
	case *net.DNSError:
		c := *e
		c.Err, c.Name, c.Server = ep.redact(e.Err), ep.redact(e.Name), ep.redact(e.Server)
		if e.UnwrapErr != nil {
			if c.UnwrapErr, ok = ep.redactNet(e.UnwrapErr); !ok {
				return nil, false
			}
		}
		return &c, true
	case *net.OpError:
		c := *e
		if c.Err, ok = ep.redactNet(e.Err); !ok {
			return nil, false
		}
		return &c, ep.redact(c.Error()) == c.Error()
	}
	// Errors that name nothing of the endpoint (a context error, a
	// syscall.Errno) are kept as they are.
	return err, ep.redact(err.Error()) == err.Error()
}
