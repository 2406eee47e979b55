package pubsub

import (
	"cmp"
	"encoding/base64"
	"errors"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// minSecretLen is the shortest value redacted, as in the transport: a
// shorter one ("/", "1") would shred messages and protect nothing.
const minSecretLen = 3

// redactedText replaces a secret in a message.
const redactedText = "[redacted]"

// secrets is every text of one endpoint that must never appear in an
// error or a log: the same approach as the transport's (transport's
// secretsOf), over a WebSocket URL and its headers. Once the transport
// moves under internal/, one shared set should serve both.
type secrets struct {
	all []string // longest first
}

// newSecrets lists the URL whole and in parts (user info, host unless an
// IP, path and each segment, query and each pair and value, fragment),
// each header value whole and by token, in their raw, decoded and
// encoded forms (percent, base64, JSON).
func newSecrets(rawURL string, headers []string) *secrets {
	var vals []string
	add := func(v ...string) { vals = append(vals, v...) }
	add(rawURL)
	if u, err := url.Parse(rawURL); err == nil {
		add(u.String(), u.RequestURI(), u.Host, u.Path, u.RawPath, u.EscapedPath(), u.RawQuery, u.Fragment)
		if net.ParseIP(u.Hostname()) == nil {
			add(u.Hostname(), strings.ToLower(u.Hostname()))
		}
		if u.User != nil {
			pass, _ := u.User.Password()
			add(u.User.String(), u.User.Username(), pass, u.User.Username()+":"+pass)
		}
		add(strings.Split(u.Path, "/")...)
		add(strings.Split(u.EscapedPath(), "/")...)
		for pair := range strings.FieldsFuncSeq(u.RawQuery, func(r rune) bool { return r == '&' || r == ';' }) {
			k, v, _ := strings.Cut(pair, "=")
			add(pair, v)
			if v == "" {
				add(k)
			}
		}
	}
	for _, h := range headers {
		add(h)
		add(strings.FieldsFunc(h, func(r rune) bool { return strings.ContainsRune(" \t,;=\"", r) })...)
	}
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
			out = append(out, v, url.QueryEscape(v), url.PathEscape(v), strings.Trim(strconv.Quote(v), `"`),
				base64.StdEncoding.EncodeToString([]byte(v)), base64.RawURLEncoding.EncodeToString([]byte(v)))
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if c := cmp.Compare(len(b), len(a)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return &secrets{all: slices.Compact(out)}
}

// redact replaces every secret in msg.
func (s *secrets) redact(msg string) string {
	for _, v := range s.all {
		if strings.Contains(msg, v) {
			msg = strings.ReplaceAll(msg, v, redactedText)
		}
	}
	return msg
}

// redactedError is an error whose text held a secret: its redacted text,
// and nothing a caller could unwrap to the original.
type redactedError struct{ msg string }

func (e *redactedError) Error() string { return e.msg }

// clean returns err safe to show: a *url.Error (which quotes the URL) is
// replaced by its cause; an error whose text still holds a secret (a DNS
// error naming the host, a close reason echoing the key) by its redacted
// text. An error that names no secret is kept, so errors.Is and
// errors.As still reach *net.OpError, context errors and the like.
func (s *secrets) clean(err error) error {
	if err == nil {
		return nil
	}
	var ue *url.Error
	for errors.As(err, &ue) {
		err = ue.Err
	}
	text := err.Error()
	if msg := s.redact(text); msg != text {
		return &redactedError{msg: msg}
	}
	return err
}
