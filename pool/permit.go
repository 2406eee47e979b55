package pool

import (
	"sync/atomic"
	"time"

	"github.com/solroute/solroute/endpoint"
)

// Permit is the right to send one request to one endpoint. Report the
// outcome with exactly one of Success, Failure or RateLimited, or give it
// back with Release; all four are idempotent and the first one wins.
//
// A Permit dropped without any of them keeps its concurrency slot forever;
// Pool.Outstanding and the InFlight of Pool.Snapshot show it.
type Permit struct {
	rt *endpoint.Runtime
	// pool, not its clock: one word instead of an interface's two keeps
	// the Permit, the fast path's only allocation, in the 80-byte class.
	pool     *Pool
	admitted time.Time
	deadline time.Time
	gen      uint64
	done     atomic.Bool
}

// Endpoint returns the endpoint's Name.
func (pm *Permit) Endpoint() string { return pm.rt.Name() }

// Tier returns the endpoint's tier.
func (pm *Permit) Tier() int { return pm.rt.Tier() }

// Role returns the role the permit serves.
func (pm *Permit) Role() endpoint.Role { return pm.rt.Role() }

// Deadline returns the deadline the permit was acquired under.
func (pm *Permit) Deadline() time.Time { return pm.deadline }

// AdmittedAt returns the instant the permit was granted at, on the pool's
// clock; it is always before Deadline.
func (pm *Permit) AdmittedAt() time.Time { return pm.admitted }

// RequestTimeout returns the endpoint's configured (normalised) request
// timeout for this role; the transport bounds one attempt by it and by
// Deadline.
func (pm *Permit) RequestTimeout() time.Duration { return pm.rt.Limits().RequestTimeout }

// finish reports whether this is the first outcome.
func (pm *Permit) finish() bool { return pm.done.CompareAndSwap(false, true) }

// Success records a success and releases the slot.
func (pm *Permit) Success() {
	if pm.finish() {
		pm.rt.SucceededAt(pm.pool.clock.Now(), pm.gen)
		pm.rt.Release()
	}
}

// Failure records a failure (health: Available -> Degraded; after
// Options.Ejection's After consecutive failures the endpoint is ejected for
// a while) and releases the slot.
func (pm *Permit) Failure() {
	if pm.finish() {
		pm.rt.FailedAt(pm.pool.clock.Now(), pm.gen)
		pm.rt.Release()
	}
}

// RateLimited records a provider rate limit: the endpoint cools down for its
// PauseAfterRateLimit, extended to providerDelay when that is longer, capped
// at endpoint.MaxProviderDelay. Releases the slot.
func (pm *Permit) RateLimited(providerDelay time.Duration) {
	if pm.finish() {
		pm.rt.RateLimitedAt(pm.pool.clock.Now(), providerDelay)
		pm.rt.Release()
	}
}

// Release returns the slot without recording an outcome (the caller's
// context ended before anything could be learnt).
func (pm *Permit) Release() {
	if pm.finish() {
		pm.rt.Release()
	}
}
