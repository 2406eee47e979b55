package engine

import (
	"context"
	"slices"

	"github.com/solroute/solroute/internal/slots"
)

// capabilitiesKey is the context key of WithCapabilities.
type capabilitiesKey struct{}

// WithCapabilities returns a context under which every call requires an
// endpoint carrying each of caps (for example "archive"). It is how callers
// that go through solana-go's client, which has no such parameter, route
// one call to capable endpoints.
func WithCapabilities(ctx context.Context, caps ...string) context.Context {
	return context.WithValue(ctx, capabilitiesKey{}, slices.Clone(caps))
}

// capabilitiesFrom returns the capabilities set by WithCapabilities, or nil.
func capabilitiesFrom(ctx context.Context) []string {
	caps, _ := ctx.Value(capabilitiesKey{}).([]string)
	return caps
}

// monotonicKey is the context key of WithMonotonicReads.
type monotonicKey struct{}

// WithMonotonicReads returns a context under which a call's reads are
// monotonic (on) or not (off), whatever Settings.MonotonicReads says; a
// Session in the context (WithSession) is used only when on.
func WithMonotonicReads(ctx context.Context, on bool) context.Context {
	return context.WithValue(ctx, monotonicKey{}, on)
}

// sessionKey is the context key of WithSession.
type sessionKey struct{}

// WithSession returns a context under which calls keep their high-water
// marks in s instead of the client's: reads never go back in time within
// s, and are not held to the slots other callers saw. s may be shared by
// any number of goroutines. It turns monotonic reads on for these calls
// unless WithMonotonicReads(ctx, false) turns them off.
func WithSession(ctx context.Context, s *slots.Session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// avoidKey is the context key of WithAvoid.
type avoidKey struct{}

// WithAvoid returns a context whose calls avoid the named endpoints while
// another endpoint that can serve them exists (pool.Request.Avoid): to ask
// a second endpoint what the first said.
func WithAvoid(ctx context.Context, names ...string) context.Context {
	return context.WithValue(ctx, avoidKey{}, slices.Clone(names))
}

// endpointKey is the context key of WithEndpoint.
type endpointKey struct{}

// WithEndpoint returns a context whose calls go to the endpoint named
// name and to no other (pool.Request.Endpoint: a retry stays on it, after
// its backoff), and whose reads are held to no session's floor, as under
// WithMonotonicReads(ctx, false): to learn what that one endpoint has
// seen, however far behind the others it is (the confirm package asks each
// witness of an expiry this way). A name no endpoint of the call's role
// has fails the call with pool's ErrNoEndpoint.
func WithEndpoint(ctx context.Context, name string) context.Context {
	return context.WithValue(WithMonotonicReads(ctx, false), endpointKey{}, pin{name: name})
}

// WithEndpointOnce is WithEndpoint for a caller that moves on by itself
// when the endpoint fails (a fan-out copy goes to the next endpoint): the
// call makes no counted retry (retry.Input.Once). A failure the policy
// would retry with a counted retry ends it with the decision max-retries,
// so that no retry it never makes is reported to its Observers, metrics
// or spans. Retries that count against nothing still run: a transparent
// one (never sent) and, for a read, a not-yet one (a few slots short of
// its floor); only sends use it.
func WithEndpointOnce(ctx context.Context, name string) context.Context {
	return context.WithValue(WithMonotonicReads(ctx, false), endpointKey{}, pin{name: name, once: true})
}

// pin is WithEndpoint's and WithEndpointOnce's value.
type pin struct {
	name string
	once bool
}

// endpointFrom returns the name set by WithEndpoint or WithEndpointOnce
// ("" when neither), and whether it was the latter.
func endpointFrom(ctx context.Context) (name string, once bool) {
	p, _ := ctx.Value(endpointKey{}).(pin)
	return p.name, p.once
}
