package retry

import (
	"sync/atomic"

	"github.com/solroute/solroute/retrypolicy"
)

// Call is one call's retry state: the retries it was granted and the
// budget place it holds. It is used by one goroutine at a time; End may be
// called more than once.
type Call struct {
	p       *Policy
	r       Retries
	holding bool // a budget place is held for the attempt in flight
	hedging bool // a budget place is held for the call's hedge
	// hedgeToken: the hedge's place was paid with a token of the account
	// (not the floor), which Unhedge gives back.
	hedgeToken bool
	ended      atomic.Bool // End ran
}

// Next decides after attempt a. A retry takes a place in the retry budget
// (released at the next Next or at End); when the budget is spent the
// decision is to stop, with that reason. A transparent retry and a
// not-yet retry (RuleNotYet) take no place. After End, Next always stops with RuleCallEnded.
func (c *Call) Next(a Input) retrypolicy.Decision {
	if c.ended.Load() {
		return stop(retrypolicy.RuleCallEnded)
	}
	// The attempt the held place was for has finished: give it back first,
	// so a call never holds more than one place.
	c.release()
	d := decide(c.p.settings(), a, c.r)
	if !d.Retry {
		return d
	}
	if d.Transparent {
		c.r.Transparent++
		return d
	}
	if d.NotYet {
		c.r.NotYet++
		return d
	}
	if ok, _ := c.p.takeRetry(); !ok {
		return stop(retrypolicy.RuleBudget)
	}
	c.holding = true
	c.r.Counted++
	return d
}

// Hedge asks the retry budget for a hedge: a second attempt of an
// Idempotent operation sent while the first is still running, on another
// endpoint (the transport decides when and where). A hedge is paid like a
// counted retry, so an overload cannot double the load through hedges
// (gRPC throttles hedges with its retry throttling too); its place is held
// until End. A call gets at most one hedge; Hedge reports false for a
// second one, for a class other than Idempotent, after End, or when the
// budget is spent.
func (c *Call) Hedge(class retrypolicy.Class) bool {
	if c.hedging || class != retrypolicy.Idempotent || c.ended.Load() {
		return false
	}
	ok, token := c.p.takeRetry()
	c.hedging, c.hedgeToken = ok, token
	return ok
}

// Unhedge gives back the place Hedge took when no hedge followed (no
// other endpoint could take it at once): the floor's place, or the token
// it spent, as if Hedge had never been asked, so that a hedge that is
// not sent costs the budget nothing and the call may ask again later.
// It does nothing when the call holds no hedge place, or after End.
func (c *Call) Unhedge() {
	if !c.hedging || c.ended.Load() {
		return
	}
	c.hedging = false
	c.p.giveBack(c.hedgeToken)
	c.hedgeToken = false
}

// CanRetry reports whether a counted retry could be granted now, without
// taking one: the call has fewer counted retries than MaxRetries, has
// not ended, and the budget's floor or account would pay (Policy.takeRetry's
// rule, the place this call holds for its attempt in flight counted as
// given back, as Next gives it back before it asks). It is a reading,
// not a reservation: another call may take the last place meanwhile. It
// costs two atomic loads, for callers on the hot path (the transport's
// cut rule asks it before every attempt).
func (c *Call) CanRetry() bool {
	if c.r.Counted >= c.p.settings().MaxRetries || c.ended.Load() {
		return false
	}
	var held int64
	if c.holding {
		held = 1
	}
	return c.p.canTake(held)
}

// Hedged reports whether the call has had its one hedge: a caller can
// then skip asking for another endpoint's permit that Hedge would refuse.
func (c *Call) Hedged() bool { return c.hedging }

// Retries returns the retries granted to this call so far.
func (c *Call) Retries() Retries { return c.r }

// End finishes the call and releases its budget places. Idempotent.
func (c *Call) End() {
	if !c.ended.CompareAndSwap(false, true) {
		return
	}
	c.release()
	if c.hedging {
		c.p.retries.Add(-1)
	}
	c.p.calls.Add(-1)
}

// release gives back the budget place held for a retry, if any.
func (c *Call) release() {
	if c.holding {
		c.holding = false
		c.p.retries.Add(-1)
	}
}
