package engine

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/retry"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// Adaptive attempt timeouts and automatic hedge delays (issue 14,
// plans/010-adaptive-timeouts.md): a read's attempt is bounded by its
// endpoint's recent latency for the method instead of half the call's
// budget, and HedgeAuto hedges it at that latency's p95. The inputs are
// admission.Permit.Latency's quantiles (the endpoint's own answers, else its
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

// attemptTimeout returns the bounds of one attempt of cs on pm starting at now, before
// the time left before the call's deadline cuts them: fair is the cut
// rule's (fairTimeout, and whether the adaptive rule set it), bound the
// one the attempt runs under. bound is fair when a cut can buy another
// attempt (cs.cuttable) or Settings.AttemptTimeout is set (the caller's
// own rule); otherwise it is the call's whole budget on this endpoint,
// and the attempt runs until the call's deadline: a cut that nothing can
// follow only fails a call that an answer a little later would have
// served. fair still says whose fault a timeout is (attempt).
func (c *Engine) attemptTimeout(cs *callState, pm *admission.Permit, now time.Time) (fair, bound time.Duration, adaptive bool) {
	own := cs.budget(pm.RequestTimeout())
	fair, adaptive = c.fairTimeout(cs, own, pm, now)
	if cs.cuttable || c.attemptTO > 0 {
		return fair, fair, adaptive
	}
	return fair, own, false
}

// fairTimeout is the cut rule's bound of one attempt of cs on pm, whose
// own bound (the endpoint's request timeout, or the method's budget) is
// own, and whether the adaptive rule set it:
//
//   - a read (class Idempotent) with no fixed Settings.AttemptTimeout,
//     that the retry policy may still retry (fewer counted retries so far
//     than MaxRetries), whose endpoint or role has recent answers to go
//     by, while the rule is not suspended (cutCounter): max(AdaptiveMultiple
//     × p99, AdaptiveFloor), doubled for each counted retry the call
//     already made (so that when every endpoint turned slower than its
//     history, a call's later attempts still wait long enough), at most
//     own;
//   - any other attempt: the fixed rule, min(own, Settings.AttemptTimeout
//     or half the call's budget). Sends keep it, because an ambiguous send
//     costs far more than a slow one (and armAttempt never cuts one that
//     may have been written before the deadline); and a read's last chance
//     keeps it (where attemptTimeout does not cut it at all).
func (c *Engine) fairTimeout(cs *callState, own time.Duration, pm *admission.Permit, now time.Time) (d time.Duration, adaptive bool) {
	fixed := own
	if cs.attemptMax > 0 {
		fixed = min(own, cs.attemptMax)
	}
	if !cs.adaptive || cs.retries >= c.maxRetries || c.cuts.suspended(now) {
		return fixed, false
	}
	l := pm.Latency()
	if l.Source == admission.LatencyNone {
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
func (c *Engine) hedgeDelay(pm *admission.Permit) time.Duration {
	if c.hedgeAfter != transport.HedgeAuto {
		return c.hedgeAfter
	}
	l := pm.Latency()
	if l.Source == admission.LatencyNone {
		return HedgeAutoCold
	}
	return max(l.P95, HedgeAutoFloor)
}

// budget is the call's budget on an endpoint whose request timeout is d:
// the method's own (callState.ownTimeout) when it has one, else d, at
// least callState.minTimeout.
func (cs *callState) budget(d time.Duration) time.Duration {
	if cs.ownTimeout > 0 {
		return cs.ownTimeout
	}
	return max(d, cs.minTimeout)
}

// cuttable reports whether an attempt of cs on endpoint name may be cut
// before the call's deadline: only when the time a cut saves can buy
// another attempt elsewhere, that is when the retry policy could grant a
// counted retry now (call.CanRetry: fewer than MaxRetries, and the shared
// retry budget would pay for it) and an endpoint serving req outside the
// ones it avoids and name could admit the retry, or a hedge, before the
// call's deadline (admission.Pool.AlternativeBefore: no cooldown or
// ejection lasting until then). With one endpoint a cut only sends the
// same request to the same endpoint again, and fails a read answered a
// little later than the cut (issue 20); with the budget spent (an
// outage) or the other endpoints cooling down past the deadline, the
// retry it was for is refused or waits, and fails it the same way.
func (c *Engine) cuttable(cs *callState, req admission.Request, name string, call *retry.Call) bool {
	if req.Endpoint != "" || !call.CanRetry() { // a call pinned to one endpoint has no elsewhere
		return false
	}
	return c.pool.AlternativeBefore(req.Role, req.Capabilities, req.Avoid, name, cs.deadline)
}

// attemptTimer ends one attempt at its bound (armAttempt). It carries
// the attempt's dispatchTracker, body reader and request context, so that
// an attempt's whole set-up is one allocation besides its cancel context
// and timer. Its fields but tracker, body and ctx are guarded by mu.
type attemptTimer struct {
	tracker dispatchTracker
	// charge is what the attempt charged the response budget (budget.go).
	charge bodyCharge
	// body reads the request's body (newRequest).
	body bytes.Reader
	// ctx is the request's context (requestContext), written once before
	// the request is sent.
	ctx traceContext
	mu  sync.Mutex
	t   clockwork.Timer
	// start is when the attempt started; bound how long it may run.
	start time.Time
	bound time.Duration
	// extend: at the first bound, an attempt that may have been written
	// runs on until the call's deadline.
	extend  bool
	stopped bool
	// c, cs and cancel are what fire needs.
	c      *Engine
	cs     *callState
	cancel context.CancelCauseFunc
}

// newAttemptTimer returns the timer of an attempt of cs starting at now,
// bounded by timeout, its tracker ready (dispatchTracker.init); armAttempt
// starts it.
func (c *Engine) newAttemptTimer(cs *callState, now time.Time, timeout time.Duration) *attemptTimer {
	at := &attemptTimer{start: now, bound: timeout, c: c, cs: cs,
		extend: cs.class != retrypolicy.Idempotent && now.Add(timeout).Before(cs.deadline)}
	at.tracker.init()
	return at
}

// arm starts the timer that cancels the attempt (with errAttemptTimeout,
// through cancel) after its bound, on the pool's clock. For a call that
// is not Idempotent, a bound before the call's deadline cuts the attempt
// only while the tracker proves nothing was handed to a connection: a send
// that may have been written cannot be failed over, so a cut would only
// make it ambiguous sooner, and an answer may still come; it then runs
// until the deadline.
func (at *attemptTimer) arm(cancel context.CancelCauseFunc) {
	at.mu.Lock()
	defer at.mu.Unlock()
	at.cancel = cancel
	at.t = at.c.clock.AfterFunc(at.bound, at.fire)
}

// fire is the timer's function: extend a send that may have been
// written, cancel anything else.
func (at *attemptTimer) fire() {
	at.mu.Lock()
	defer at.mu.Unlock()
	switch {
	case at.stopped:
	case at.extend && at.tracker.state() != retrypolicy.NotDispatched:
		at.extend = false
		at.bound = at.cs.deadline.Sub(at.start)
		at.t.Reset(at.cs.deadline.Sub(at.c.clock.Now()))
	default:
		at.cancel(errAttemptTimeout)
	}
}

// supersede cancels the attempt, with errSuperseded, unless it ended:
// another attempt of its hedged pair settled the call (firstCancel).
func (at *attemptTimer) supersede() {
	at.mu.Lock()
	defer at.mu.Unlock()
	if !at.stopped {
		at.cancel(errSuperseded)
	}
}

// stop stops the timer and returns the bound the attempt ran under.
func (at *attemptTimer) stop() time.Duration {
	at.mu.Lock()
	defer at.mu.Unlock()
	at.stopped = true
	at.t.Stop()
	return at.bound
}
