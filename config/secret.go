package config

import (
	"fmt"
	"log/slog"
)

// Secret is a string that must never be printed: an endpoint URL (which may
// carry an API key) or a header value. Every formatting path — fmt verbs,
// encoding/json, encoding.TextMarshaler users and log/slog — shows
// "[redacted]". Convert it with string(s) only where the value is used.
type Secret string

// redacted is what every formatting path shows instead of a Secret.
const redacted = "[redacted]"

// String returns "[redacted]".
func (Secret) String() string { return redacted }

// GoString returns "[redacted]", for %#v.
func (Secret) GoString() string { return redacted }

// Format writes "[redacted]" for every verb, so that %s, %v, %q, %x and
// %#v print nothing of the value.
func (Secret) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(redacted)) }

// MarshalText returns "[redacted]", which encoding/json and other
// encoders use.
func (Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// LogValue returns "[redacted]" for log/slog.
func (Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

var (
	_ fmt.Formatter  = Secret("")
	_ fmt.GoStringer = Secret("")
	_ slog.LogValuer = Secret("")
)
