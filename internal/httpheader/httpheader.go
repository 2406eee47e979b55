// Package httpheader holds the syntax of an HTTP header a configured
// endpoint may carry, shared by endpoint.Validate and config's rules.
package httpheader

import "strings"

// ValidName reports whether s is an RFC 9110 token, the syntax of an HTTP
// header name.
func ValidName(s string) bool { return s != "" && tokenPrefix(s) == len(s) }

// ShownName is the name as an error may print it: whole, but for an
// invalid name holding a colon, only what comes before it, then "…". Such
// a name is a pasted "Name: value" line, and its value most often a key
// (a review found "Authorization: Bearer KEY" quoted whole).
func ShownName(s string) string {
	if i := strings.IndexByte(s, ':'); i >= 0 && !ValidName(s) {
		return s[:i] + "…"
	}
	return s
}

// tokenPrefix returns the length of s's longest prefix of RFC 9110 token
// bytes.
func tokenPrefix(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return i
		}
	}
	return len(s)
}

// ValidValue reports whether s is a header value net/http will send: no
// control character but horizontal tab.
func ValidValue(s string) bool {
	for _, r := range s {
		if (r < 0x20 && r != '\t') || r == 0x7f {
			return false
		}
	}
	return true
}
