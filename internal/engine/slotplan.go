package engine

import (
	"context"
	"time"

	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/slots"
	"github.com/solroute/solroute/retrypolicy"
)

// The call's side of slot tracking (plans/009-consistency.md). Package
// slots owns every rule of "is this endpoint behind" (the marks, the
// reference, the floors, the sessions); the call only says which session
// a read keeps its marks in, and carries the plan slots.Book.Plan made.

// sessionFor returns the session a call under ctx keeps its marks in, nil
// when its reads are not monotonic.
func (c *Engine) sessionFor(ctx context.Context) *slots.Session {
	on, set := ctx.Value(monotonicKey{}).(bool)
	session, _ := ctx.Value(sessionKey{}).(*slots.Session)
	switch {
	case set && !on:
		return nil
	case session != nil:
		return session
	case set || c.monotonic:
		return &c.session
	}
	return nil
}

// sawSlot tells the slot book the slot pm's endpoint answered or refused
// at (o.slot) by now, and marks a refusal a few slots short of the call's floor,
// from an endpoint in step, as not yet (slots.Book.Answered): the
// client's own bound, not the endpoint's fault, which the retry policy
// retries uncounted where the slot is (retrypolicy.Outcome.NotYet).
func (c *Engine) sawSlot(cs *callState, pm *admission.Permit, o *outcome, now time.Time) {
	if o.slot == 0 || cs.slots == nil {
		return
	}
	refused := o.RPCCode == codeMinContextSlotNotReached
	if gap := c.book.Answered(now, pm.Marks(), cs.slots, o.slot, refused); gap > 0 && o.Cause == retrypolicy.NodeBehind {
		o.NotYet, o.Fault = gap, retrypolicy.LocalFault
	}
}

// slotElsewhere reports, for an attempt refused a few slots short of its
// floor (o.NotYet), whether an endpoint outside tried may have that slot
// (admission.Pool.SlotElsewhere): the not-yet retry then goes at once;
// else nearest is the fewest slots short one of them is known to be.
func (c *Engine) slotElsewhere(o *outcome, req admission.Request, tried []string) (elsewhere bool, nearest uint64) {
	if o.NotYet == 0 || req.Endpoint != "" {
		return false, 0
	}
	return c.pool.SlotElsewhere(req, tried)
}
