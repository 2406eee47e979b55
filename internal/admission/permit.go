package admission

import (
	"sync/atomic"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/retry"
	"github.com/solroute/solroute/internal/rolestate"
	"github.com/solroute/solroute/retrypolicy"
)

// Permit is the right to send one request to one endpoint. Report the
// attempt's outcome with Done, or give the permit back unused with
// Release; both are idempotent and the first call wins (grpc-go's
// PickResult.Done).
//
// A Permit dropped without any of them keeps its concurrency slot forever;
// Pool.Outstanding and the InFlight of Pool.Snapshot show it.
type Permit struct {
	// m, which knows its pool: a word less keeps the Permit, the fast
	// path's only allocation, in the 64-byte class.
	m        *member
	adm      rolestate.Admission
	deadline time.Time
	// lat is the histogram of the method a timed request names
	// (Request.Timed); nil: the attempt is not timed.
	lat *rolestate.Histogram
	// inDoubt: admitted as a last resort, in doubt (Request.AvoidDoubt).
	inDoubt bool
	// hist is, for a history read, the method's number + 1 in the pool's
	// history methods (history.go); 0 otherwise. (It fits beside inDoubt:
	// the Permit stays in the 64-byte class.)
	hist uint16
	done atomic.Bool
}

// Endpoint returns the endpoint's Name.
func (pm *Permit) Endpoint() string { return pm.m.rt.Name() }

// Tier returns the endpoint's tier.
func (pm *Permit) Tier() int { return pm.m.rt.Tier() }

// Role returns the role the permit serves.
func (pm *Permit) Role() endpoint.Role { return pm.m.rt.Role() }

// InDoubt reports whether the permit's endpoint was in doubt when admitted
// for a request that avoids doubt: a last resort, taken because no other
// endpoint could be had.
func (pm *Permit) InDoubt() bool { return pm.inDoubt }

// Deadline returns the deadline the permit was acquired under.
func (pm *Permit) Deadline() time.Time { return pm.deadline }

// AdmittedAt returns the instant the permit was granted at, on the pool's
// clock; it is always before Deadline.
func (pm *Permit) AdmittedAt() time.Time { return pm.m.rt.AdmittedAt(pm.adm) }

// RequestTimeout returns the endpoint's configured (normalised) request
// timeout for this role; the transport bounds one attempt by it and by
// Deadline.
func (pm *Permit) RequestTimeout() time.Duration { return pm.m.rt.Limits().RequestTimeout }

// finish reports whether this is the first outcome.
func (pm *Permit) finish() bool { return pm.done.CompareAndSwap(false, true) }

// Done reports the outcome of the attempt the permit admitted, and gives
// the slot back. Only the first Done or Release counts.
//
// What the endpoint's state learns from it:
//   - a success, or a failure that is the request's (o.Fault is
//     retrypolicy.RequestFault: the endpoint answered properly): a
//     success (health: Degraded -> Available, failure streak reset), and
//     for a timed request (Request.Timed) a sample of the method's
//     latency (see Latency);
//   - a failure that is not the endpoint's (the caller's cancellation,
//     the client's own limits): nothing;
//   - a provider's pause (o.Pause: a rate limit, or a 503 with
//     Retry-After): a cooldown of the endpoint's PauseAfterRateLimit,
//     extended to the provider's delay (capped at 60 s, rolestate's
//     maxProviderDelay);
//   - any other failure of the endpoint: a failure (health: Available ->
//     Degraded; Options.Ejection.After in a row eject it).
//
// And a history read (Request.History) answered with an error that says
// the endpoint lacks the history asked for (retry.LacksHistory) avoids
// the endpoint for that method for Settings.HistoryAvoid.
//
// And, whatever the above, when o is doubtful (the endpoint failed and a
// server may have acted), every role of the endpoint is put in doubt for
// Settings.DoubtWindow.
func (pm *Permit) Done(o retrypolicy.Outcome) {
	if !pm.finish() {
		return
	}
	now := pm.m.pool.clock.Now()
	rt := pm.m.rt
	switch delay, pause := retry.Pause(o); {
	case !o.Failed() || o.Fault == retrypolicy.RequestFault:
		rt.SucceededAt(now, pm.adm.Generation)
		rt.ObserveAt(now, pm.adm, false)
		if pm.lat != nil {
			pm.lat.ObserveAt(now, now.Sub(rt.AdmittedAt(pm.adm)))
		}
	case o.Fault != retrypolicy.EndpointFault:
	case pause:
		rt.RateLimitedAt(now, delay)
	default:
		rt.FailedAt(now, pm.adm.Generation)
		rt.ObserveAt(now, pm.adm, true)
		if pm.hist != 0 { // an endpoint's error: may say it lacks the history
			pm.avoidHistory(o.RPCCode, now)
		}
	}
	if retry.Doubtful(o) {
		for _, r := range pm.m.endpoint {
			r.DoubtedAt(now)
		}
	}
	rt.Release(pm.adm)
}

// Throttled records a rate limit that the endpoint reported inside an
// answer the call still uses (a batch member's JSON-RPC 429 beside other
// members' answers), with the provider's delay (Retry-After; 0: none):
// the role cools down as after a refusal. Call it before Done, which then
// records the answer; after the permit ended it does nothing.
func (pm *Permit) Throttled(providerDelay time.Duration) {
	if pm.done.Load() {
		return
	}
	pm.m.rt.RateLimitedAt(pm.m.pool.clock.Now(), providerDelay)
}

// Overtaken ends the permit of an attempt canceled because a hedge of the
// same call, started at an automatic delay (the endpoint's recent p95,
// transport.HedgeAuto), answered first, and gives the slot back. Only the
// first Done, Overtaken or Release counts.
//
// By construction one answer in twenty comes after such a delay, so
// being overtaken is slowness more than failure. The endpoint takes a
// failure (health: Available -> Degraded; Options.Ejection.After in a row
// eject it, as they eject a blackhole), but the attempt's elapsed time is
// a plain latency sample for the balancing, without the failure penalty;
// nothing is put in doubt; and the method's latency records nothing (the
// answer would have come later, if at all). An attempt overtaken by a
// hedge at a fixed delay is a failure: report it with Done.
func (pm *Permit) Overtaken() {
	if !pm.finish() {
		return
	}
	now := pm.m.pool.clock.Now()
	rt := pm.m.rt
	rt.FailedAt(now, pm.adm.Generation)
	rt.ObserveAt(now, pm.adm, false)
	rt.Release(pm.adm)
}

// Release gives the slot back without an outcome: the permit was not used
// (nothing was sent).
func (pm *Permit) Release() {
	if pm.finish() {
		pm.m.rt.Release(pm.adm)
	}
}
