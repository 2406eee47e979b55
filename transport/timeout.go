package transport

import (
	"time"

	"github.com/solroute/solroute/pool"
)

// Adaptive attempt timeouts and automatic hedge delays (issue 14,
// plans/010-adaptive-timeouts.md): a read's attempt is bounded by its
// endpoint's recent latency for the method instead of half the call's
// budget, and HedgeAuto hedges it at that latency's p95. The inputs are
// pool.Permit.Latency's quantiles (the endpoint's own answers, else its
// role's); the rules and their constants live here. They are constants,
// not settings: AttemptTimeout and a fixed HedgeAfter are the overrides.
const (
	// AdaptiveMultiple times the recent p99 is a read's attempt timeout.
	// Three: a heavy (Pareto α = 2) tail past its p99 passes three times
	// it one time in a thousand, an exponential one one in a million;
	// and a p99 of a few hundred milliseconds, common for mainnet
	// providers, still gives a second or more.
	AdaptiveMultiple = 3
	// AdaptiveFloor is the shortest adaptive attempt timeout. 500 ms is
	// above an endpoint that answers everything after 300 ms, issue 14's
	// slow but healthy peer, with two thirds to spare, and above a Solana
	// slot (400 ms): a provider that turns that slow is not cut off
	// before its recent history shows it; yet ten times shorter than half
	// the default 10 s budget. eRPC's examples floor their quantile
	// timeouts at 200 ms and 500 ms; RFC 6298 floors TCP's at 1 s,
	// Linux at 200 ms.
	AdaptiveFloor = 500 * time.Millisecond
	// HedgeAutoFloor is the shortest automatic hedge delay. Below 20 ms
	// the delay is inside the client's own scheduling noise under load
	// (64 callers on two cores see a 10–15 ms p95 on loopback with nothing
	// wrong), where a hedge duplicates requests for nothing. Finagle's
	// backup requests floor at 1 ms; eRPC's quantile hedge at 100 ms.
	HedgeAutoFloor = 20 * time.Millisecond
	// HedgeAutoCold is the automatic hedge delay with no recent latency
	// anywhere in the role (a process's first calls): AdaptiveFloor. A
	// hedge does not give up on the first attempt, so guessing early costs
	// one request, not an answer; a timeout does, so the attempt timeout
	// keeps the fixed rule when it has nothing to go by.
	HedgeAutoCold = AdaptiveFloor
)

// attemptTimeout is the bound of one attempt of cs on pm, before the time
// left before the call's deadline cuts it, and whether the adaptive rule
// set it:
//
//   - a read (class Idempotent) with no fixed Settings.AttemptTimeout,
//     that the retry policy may still retry (fewer counted retries so far
//     than MaxRetries), whose endpoint or role has recent answers to go
//     by, while the rule is not suspended (cutCounter): max(AdaptiveMultiple
//     × p99, AdaptiveFloor), doubled for each counted retry the call
//     already made (so that when every endpoint turned slower than its
//     history, a call's later attempts still wait long enough), at most
//     the endpoint's RequestTimeout;
//   - any other attempt: the fixed rule, min(the endpoint's
//     RequestTimeout, Settings.AttemptTimeout or half the call's budget).
//     Sends keep it, because an ambiguous send costs far more than a slow
//     one; and a read's last chance keeps it, because nothing can follow
//     a timeout there.
func (c *Client) attemptTimeout(cs *callState, pm *pool.Permit) (d time.Duration, adaptive bool) {
	own := pm.RequestTimeout()
	fixed := own
	if cs.attemptMax > 0 {
		fixed = min(own, cs.attemptMax)
	}
	if !cs.adaptive || cs.retries >= c.maxRetries || c.cuts.suspended(c.clock.Now()) {
		return fixed, false
	}
	l := pm.Latency()
	if l.Source == pool.LatencyNone {
		return fixed, false
	}
	d = max(AdaptiveMultiple*l.P99, AdaptiveFloor)
	for range cs.retries {
		if d >= own {
			break
		}
		d *= 2
	}
	return min(d, own), true
}

// hedgeDelay is how long the attempt on pm may run before its hedge
// starts: Settings.HedgeAfter, or with HedgeAuto the endpoint's recent
// p95 for the method (its role's when it has too few answers of its own),
// at least HedgeAutoFloor, and HedgeAutoCold when nothing is known.
func (c *Client) hedgeDelay(pm *pool.Permit) time.Duration {
	if c.hedgeAfter != HedgeAuto {
		return c.hedgeAfter
	}
	l := pm.Latency()
	if l.Source == pool.LatencyNone {
		return HedgeAutoCold
	}
	return max(l.P95, HedgeAutoFloor)
}
