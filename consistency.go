package solroute

import (
	"context"

	"github.com/solroute/solroute/transport"
)

// Session is a scope of monotonic reads narrower than the client: reads
// made with WithSession(ctx, s) never return a context slot older than
// one already returned within s, and are not held to what other callers
// saw. See docs/consistency.md.
type Session = transport.Session

// NewSession returns an empty Session.
func NewSession() *Session { return transport.NewSession() }

// WithSession returns a context whose reads keep their high-water marks
// in s (and are monotonic even when the client's reads are not).
func WithSession(ctx context.Context, s *Session) context.Context {
	return transport.WithSession(ctx, s)
}

// WithMonotonicReads returns a context whose reads are monotonic (on) or
// not (off), whatever the client's setting (transport.monotonic_reads).
func WithMonotonicReads(ctx context.Context, on bool) context.Context {
	return transport.WithMonotonicReads(ctx, on)
}
