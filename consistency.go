package solroute

import (
	"context"

	"github.com/solroute/solroute/internal/engine"
)

// Session is a scope of monotonic reads narrower than the client: reads
// made with WithSession(ctx, s) never return a context slot older than
// one already returned within s, and are not held to what other callers
// saw. See docs/consistency.md.
type Session = engine.Session

// NewSession returns an empty Session.
func NewSession() *Session { return engine.NewSession() }

// WithSession returns a context whose reads keep their high-water marks
// in s (and are monotonic even when the client's reads are not).
func WithSession(ctx context.Context, s *Session) context.Context {
	return engine.WithSession(ctx, s)
}

// WithMonotonicReads returns a context whose reads are monotonic (on) or
// not (off), whatever the client's setting (transport.monotonic_reads).
func WithMonotonicReads(ctx context.Context, on bool) context.Context {
	return engine.WithMonotonicReads(ctx, on)
}
