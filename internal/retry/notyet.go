package retry

import (
	"time"

	"github.com/solroute/solroute/retrypolicy"
)

// A read refused a few slots short of its floor (Outcome.NotYet: -32016,
// or an answer below the slot the read had to reach, by no more than the
// pool's MaxSlotLag) was refused by an endpoint in step with the others,
// because the client asked for a slot the endpoint has not reached yet:
// one it returned to the same caller from a node a slot or two ahead.
// That is the client's own bound, not an outage, and spending the retry
// budget on it lets natural drift between endpoints (0 to 5 slots) fail
// reads that another endpoint, or the same one a slot later, serves.
// So (plans/009-consistency.md, "Issue 20: reads on the cluster users
// have"):
//
//   - it is retried at once when an endpoint this call has not tried is
//     not known to be short of the slot (Input.SlotElsewhere), and
//     otherwise after the gap times the slot time, when the chain should
//     be there (the nearest endpoint's gap, Input.SlotNearest, when it is
//     nearer than the refuser's), unless that passes the deadline;
//   - it counts neither against MaxRetries nor against the retry budget:
//     each costs the provider a request, so it is bounded another way,
//     by maxNotYetRetries per call and by the wait when no endpoint is
//     known at the slot;
//   - a client whose MaxRetries is 0 (no retries at all) gets none.

const (
	// maxNotYetRetries bounds the not-yet retries of one call: a pool's
	// worth of endpoints refusing in turn, as TransparentRetries' default.
	maxNotYetRetries = 8
	// slotTime is Solana's target slot time: how long the chain takes,
	// at its pace, to advance one slot.
	slotTime = 400 * time.Millisecond
	// maxWait caps a not-yet wait: the longest duration any setting
	// takes (retrypolicy's bound); no wait inside one call is worth more.
	maxWait = time.Hour
)

// Reasons of a not-yet retry.
const (
	notYetElsewhere = "a few slots short of this read's floor; retry where the slot is, uncounted"
	notYetLater     = "a few slots short of this read's floor; retry once the chain is there, uncounted"
)

// notYet reports whether attempt a, after retries r, is a read refused a
// few slots short of its floor that the not-yet rule retries.
func notYet(s *retrypolicy.Settings, a Input, r Retries) bool {
	return a.Cause == retrypolicy.NodeBehind && a.NotYet > 0 && a.Class == retrypolicy.Idempotent &&
		s.MaxRetries > 0 && r.NotYet < maxNotYetRetries
}

// notYetRetry is the decision for such an attempt: at once where the slot
// may be, else after the chain has had time to advance by the gap. The
// refuser is not avoided (no OtherEndpoint): the slot book holds its
// refusal, which keeps it from the at-once retry and ages, a slot time a
// slot, until it is where the slot is likely to be; avoiding it sent the
// retry after a wait to an endpoint further short, whose own wait could
// pass the deadline (plans/009, "The refuser is not avoided").
func notYetRetry(a Input) retrypolicy.Decision {
	d := retrypolicy.Decision{Retry: true, NotYet: true, Rule: retrypolicy.RuleNotYet, Reason: notYetElsewhere}
	if !a.SlotElsewhere {
		// The nearest endpoint's gap when it is nearer than the refuser's:
		// one slot short elsewhere is a slot's wait, whoever refused
		// five short. (capped at maxWait: no wait inside one call is
		// worth longer)
		gap := a.NotYet
		if a.SlotNearest > 0 {
			gap = min(gap, a.SlotNearest)
		}
		d.Delay, d.Reason = time.Duration(min(gap, uint64(maxWait/slotTime)))*slotTime, notYetLater
	}
	if d.Delay >= a.TimeLeft {
		return stop(retrypolicy.RuleDeadline)
	}
	return d
}
