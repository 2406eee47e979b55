package transport

import (
	"cmp"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/retrypolicy"
)

// minSecretLen is the shortest substring redacted: shorter values (a "/"
// path, a "1" header) would shred messages and protect nothing.
const minSecretLen = 3

// redacted replaces a secret in an error text.
const redacted = "[redacted]"

// secretsOf lists the substrings of spec that must never appear in an
// error text: the URL (raw and parsed forms), its path, query, user info
// and query values, and every header value. Longest first, so a longer
// secret is replaced before a substring of it.
func secretsOf(spec *endpoint.Spec, u *url.URL) []string {
	s := []string{spec.URL.Reveal(), u.String(), u.Path, u.EscapedPath(), u.RawPath, u.RawQuery, u.Fragment}
	if u.User != nil {
		s = append(s, u.User.String(), u.User.Username())
		if p, ok := u.User.Password(); ok {
			s = append(s, p)
		}
	}
	for _, vs := range u.Query() {
		s = append(s, vs...)
	}
	s = append(s, strings.Split(u.Path, "/")...)
	for _, v := range spec.Headers {
		s = append(s, v.Reveal())
	}
	s = slices.DeleteFunc(s, func(v string) bool { return len(v) < minSecretLen })
	slices.SortFunc(s, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return slices.Compact(s)
}

// redact removes every secret of ep from msg.
func (ep *endpointClient) redact(msg string) string {
	for _, s := range ep.secrets {
		if strings.Contains(msg, s) {
			msg = strings.ReplaceAll(msg, s, redacted)
		}
	}
	return msg
}

// wrapErr turns an error from net/http, from decoding or from a callback
// into a secret-free attemptError: a *url.Error (which quotes the whole
// URL) is replaced by its inner error, so errors.As still reaches
// *net.OpError, *tls.RecordHeaderError and the like; an *RPCError whose
// message or data holds a secret becomes a redacted copy, so it keeps its
// type; any other error whose text still holds a secret is replaced by its
// redacted text.
func (ep *endpointClient) wrapErr(cause retrypolicy.Cause, err error) *attemptError {
	var ue *url.Error
	for errors.As(err, &ue) {
		err = ue.Err
	}
	if re, ok := err.(*RPCError); ok {
		// The server's own words, which may echo the key it was sent (a
		// query value, a header).
		msg, data := ep.redact(re.Message), ep.redact(string(re.Data))
		if msg != re.Message || data != string(re.Data) {
			err = &RPCError{Code: re.Code, Message: msg, Data: json.RawMessage(data)}
		}
	}
	text := err.Error()
	msg := ep.redact(text)
	if msg != text {
		// The error's own text carries a secret: callers could reach it
		// through Unwrap, so keep only the redacted text.
		err = errors.New(msg)
	}
	return &attemptError{endpoint: ep.name, cause: cause, msg: trimPrefix(msg), err: err}
}
