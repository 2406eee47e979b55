package retrypolicy

import "sync/atomic"

// Call is one call's retry state: the retries it was granted and the
// budget place it holds. It is used by one goroutine at a time; End may be
// called more than once.
type Call struct {
	p       *Policy
	r       Retries
	holding bool        // a budget place is held for the attempt in flight
	ended   atomic.Bool // End ran
}

// Next decides after attempt a. A retry takes a place in the retry budget
// (released at the next Next or at End); when the budget is spent the
// decision is to stop, with that reason. A transparent retry takes no
// place. After End, Next always stops with RuleCallEnded.
func (c *Call) Next(a Attempt) Decision {
	if c.ended.Load() {
		return stop(RuleCallEnded)
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
	if !c.p.takeRetry() {
		return stop(RuleBudget)
	}
	c.holding = true
	c.r.Counted++
	return d
}

// Retries returns the retries granted to this call so far.
func (c *Call) Retries() Retries { return c.r }

// End finishes the call and releases its budget places. Idempotent.
func (c *Call) End() {
	if !c.ended.CompareAndSwap(false, true) {
		return
	}
	c.release()
	c.p.calls.Add(-1)
}

// release gives back the budget place held, if any.
func (c *Call) release() {
	if c.holding {
		c.holding = false
		c.p.retries.Add(-1)
	}
}
