package solroute

import (
	"context"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/slots"
)

// Session is a scope of monotonic reads narrower than the client: reads
// made with WithSession(ctx, s) never return a context slot older than
// one already returned within s, and are not held to what other callers
// saw. The zero value is an empty session, ready to use; it is safe for
// concurrent use by any number of goroutines. See docs/consistency.md.
type Session struct {
	marks slots.Session
}

// NewSession returns an empty Session.
func NewSession() *Session { return &Session{} }

// Slot returns the highest slot returned within s at commitment c (0:
// none): a read's context slot, or getSlot's answer, whichever is higher.
func (s *Session) Slot(c endpoint.Commitment) uint64 { return s.marks.Slot(c) }

// WithSession returns a context whose reads keep their high-water marks
// in s instead of the client's: reads never go back in time within s, and
// are not held to the slots other callers saw. It turns monotonic reads
// on for these calls unless WithMonotonicReads(ctx, false) turns them
// off.
func WithSession(ctx context.Context, s *Session) context.Context {
	if s == nil {
		return engine.WithSession(ctx, nil)
	}
	return engine.WithSession(ctx, &s.marks)
}

// WithMonotonicReads returns a context whose reads are monotonic (on) or
// not (off), whatever the client's setting (transport.Settings.
// MonotonicReads); a Session in the context is used only when on.
func WithMonotonicReads(ctx context.Context, on bool) context.Context {
	return engine.WithMonotonicReads(ctx, on)
}
