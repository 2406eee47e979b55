package solroute

import (
	"context"

	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/transport"
)

// The context helpers: what one call (or every call under one context)
// asks of the pool that solana-go's own methods have no parameter for.

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

// WithCapabilities returns a context under which every call requires an
// endpoint carrying each of caps (Endpoint.Capabilities, for example
// "archive"): how calls through solana-go's client, which has no such
// parameter, reach capable endpoints. No endpoint with them: the call
// fails with ErrNoEndpoint.
func WithCapabilities(ctx context.Context, caps ...string) context.Context {
	return engine.WithCapabilities(ctx, caps...)
}

// WithEndpoint returns a context whose calls go to the endpoint named
// name and to no other (a retry stays on it, after its backoff), and whose
// reads are held to no session's floor, as under WithMonotonicReads(ctx,
// false): to learn what that one endpoint has seen, however far behind
// the others it is. A name no endpoint of the call's role has fails the
// call with ErrNoEndpoint.
func WithEndpoint(ctx context.Context, name string) context.Context {
	return engine.WithEndpoint(ctx, name)
}

// WithObserver returns a context whose calls are also observed by o
// (after the client's Observers, and after those an outer WithObserver
// added), through every entry point: RPC(), the typed and raw calls,
// SendAndConfirm's sends. A *CallRecord is one:
//
//	var rec solroute.CallRecord
//	bal, err := c.GetBalance(solroute.WithObserver(ctx, &rec), pk, solroute.BalanceOptions{})
//	for _, a := range rec.Attempts() { ... a.Endpoint, a.Duration, a.Cause ... }
//
// A nil o is ignored.
func WithObserver(ctx context.Context, o transport.Observer) context.Context {
	return engine.WithObserver(ctx, o)
}
