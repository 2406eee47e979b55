package endpoint

import (
	"encoding"
	"fmt"
	"log/slog"
)

// Secret is a string that must never be shown: an endpoint's URL (its user
// info, host name, path or query may carry an API key) or a header value.
//
// Every way of printing a Secret shows "[redacted]": every fmt verb
// (Format, String), encoding/json and other encoders
// (MarshalText) and log/slog (LogValue). That holds also when
// a Secret is reached through an unexported field, where fmt cannot call
// its methods and prints what reflection finds: a Secret holds only a
// pointer to its value, and fmt prints a pointer below the top level as an
// address. (A pointer to a string, not to a struct: a verb that does not
// fit a pointer, such as %s, makes fmt print the struct a pointer points
// to. Dumpers that follow pointers, such as go-spew, are beyond its
// reach.)
//
// The zero value is the empty string. A Secret is immutable and safe to
// copy and to share between goroutines. Compare two with Equal: == compares
// where the values are stored, not the values. Reveal returns the value,
// for the code that sends it or checks its syntax, and for nothing else.
type Secret struct {
	// v points to the value; nil for "". A pointer, not the string itself,
	// so that reflection-based printing shows an address (see Secret).
	v *string
}

// redacted is what every printing path shows instead of a Secret's value.
const redacted = "[redacted]"

// NewSecret returns a Secret holding s.
func NewSecret(s string) Secret {
	if s == "" {
		return Secret{}
	}
	return Secret{v: &s}
}

// Reveal returns the value. It is the only way to read it: call it where
// the value is used (to build the request that carries it, to check its
// syntax) and never to print, log or wrap it in an error.
func (s Secret) Reveal() string {
	if s.v == nil {
		return ""
	}
	return *s.v
}

// IsZero reports whether the value is the empty string.
func (s Secret) IsZero() bool { return s.v == nil }

// Equal reports whether s and o hold the same value.
func (s Secret) Equal(o Secret) bool { return s.Reveal() == o.Reveal() }

// String returns "[redacted]".
func (Secret) String() string { return redacted }

// Format writes "[redacted]" for every verb and flag, so that %s, %v, %+v,
// %#v, %q, %x and the rest print nothing of the value.
func (Secret) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(redacted)) }

// MarshalText returns "[redacted]", for encoders of text.
func (Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// UnmarshalText sets the value to text, so that decoders (encoding/json
// from a JSON string, TOML and YAML decoders) can fill a Secret. It is not
// the inverse of MarshalText, which never shows the value.
func (s *Secret) UnmarshalText(text []byte) error {
	*s = NewSecret(string(text))
	return nil
}

// LogValue returns "[redacted]" for log/slog.
func (Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

var (
	_ fmt.Formatter            = Secret{}
	_ fmt.Stringer             = Secret{}
	_ encoding.TextMarshaler   = Secret{}
	_ encoding.TextUnmarshaler = (*Secret)(nil)
	_ slog.LogValuer           = Secret{}
)
