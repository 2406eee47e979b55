package pool

// CONTRACT FILE written by the lead: the exported names and signatures below
// are shared with transport/, config/ and cmd/. Implement the bodies; add
// what you need; do not rename or change these signatures without telling
// the lead. Split into files named for what they hold (pool.go, permit.go,
// acquire.go, errors.go ...) and delete this comment when done.

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
)

// Options tunes a Pool. The zero value is valid.
type Options struct {
	// Clock is the source of time for buckets, cooldowns, deadlines and
	// waits. Nil means the real clock.
	Clock clockwork.Clock
	// Logger receives one debug line per wait and per state change, naming
	// endpoints only by Name. Nil discards.
	Logger *slog.Logger
}

// Request asks for a permit.
type Request struct {
	// Role is the role the permit must serve.
	Role endpoint.Role
	// Method is the JSON-RPC method, for errors and logs only.
	Method string
	// Capabilities every candidate must carry. Nil means none.
	Capabilities []string
	// Avoid names endpoints this call already failed on. They are skipped
	// while any other compatible endpoint exists; when every compatible
	// endpoint is avoided, Avoid is ignored.
	Avoid []string
	// Deadline bounds the wait. Zero means now + DefaultTimeout for this
	// role and these capabilities. A deadline later than ctx's is cut to it.
	Deadline time.Time
}

// ErrNoEndpoint is returned at once when no endpoint serves the role with
// the required capabilities.
var ErrNoEndpoint = errors.New("pool: no endpoint serves this role and capabilities")

// ErrDeadline is matched (errors.Is) by the *DeadlineError returned when no
// candidate could be admitted before the deadline.
var ErrDeadline = errors.New("pool: no endpoint admitted before the deadline")

// Pool is a tiered set of endpoints. It is safe for concurrent use.
type Pool struct{}

// New validates specs (see endpoint.Validate) and builds a Pool.
func New(specs []endpoint.Spec, opts Options) (*Pool, error) { panic("TODO") }

// Acquire returns a permit for one request, or an error: ErrNoEndpoint at
// once, ctx's error when ctx ends first, or a *DeadlineError naming every
// candidate and why it was blocked. It never returns after the deadline.
func (p *Pool) Acquire(ctx context.Context, req Request) (*Permit, error) { panic("TODO") }

// DefaultTimeout is the smallest RequestTimeout among the endpoints that
// serve role with caps (ErrNoEndpoint if none). Callers that make several
// attempts compute one deadline from it and pass it in every Request.
func (p *Pool) DefaultTimeout(role endpoint.Role, caps []string) (time.Duration, error) {
	panic("TODO")
}

// Clock returns the pool's clock, for callers that must wait on the same
// time line (retry backoff).
func (p *Pool) Clock() clockwork.Clock { panic("TODO") }

// Specs returns a copy of the endpoint specs, in configuration order. It is
// for the transport, which needs URLs and headers; never print them.
func (p *Pool) Specs() []endpoint.Spec { panic("TODO") }

// Snapshot copies every (endpoint, role) state at one instant, ordered by
// tier, then configuration order, then role.
func (p *Pool) Snapshot() []endpoint.Snapshot { panic("TODO") }

// Permit is the right to send one request to one endpoint. Report the
// outcome with exactly one of Success, Failure or RateLimited, or give it
// back with Release; all four are idempotent and the first one wins.
type Permit struct{}

// Endpoint returns the endpoint's Name.
func (pm *Permit) Endpoint() string { panic("TODO") }

// Tier returns the endpoint's tier.
func (pm *Permit) Tier() int { panic("TODO") }

// Role returns the role the permit serves.
func (pm *Permit) Role() endpoint.Role { panic("TODO") }

// Deadline returns the deadline the permit was acquired under.
func (pm *Permit) Deadline() time.Time { panic("TODO") }

// RequestTimeout returns the endpoint's configured (normalised) request
// timeout for this role; the transport bounds one attempt by it and by
// Deadline.
func (pm *Permit) RequestTimeout() time.Duration { panic("TODO") }

// Success records a success and releases the slot.
func (pm *Permit) Success() { panic("TODO") }

// Failure records a failure (health: Available -> Degraded) and releases
// the slot.
func (pm *Permit) Failure() { panic("TODO") }

// RateLimited records a provider rate limit: the endpoint cools down for its
// PauseAfterRateLimit, extended to providerDelay when that is longer, capped
// at endpoint.MaxProviderDelay. Releases the slot.
func (pm *Permit) RateLimited(providerDelay time.Duration) { panic("TODO") }

// Release returns the slot without recording an outcome (the caller's
// context ended before anything could be learnt).
func (pm *Permit) Release() { panic("TODO") }
