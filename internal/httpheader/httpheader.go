// Package httpheader holds the syntax of an HTTP header a configured
// endpoint may carry, shared by endpoint.Validate and config's rules.
package httpheader

import "strings"

// ValidName reports whether s is an RFC 9110 token, the syntax of an HTTP
// header name.
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
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
