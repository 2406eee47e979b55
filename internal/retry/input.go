package retry

import (
	"time"

	"github.com/solroute/solroute/retrypolicy"
)

// Input is one failed attempt of one call, as the retry decision sees it:
// its Outcome and the facts of the call a decision is made from.
type Input struct {
	// Number is 1 for the first attempt of a call. It is informative: a
	// Call counts its own retries, and Decide takes them as Retries.
	Number int
	// Outcome is what happened to the attempt, as the transport built it.
	retrypolicy.Outcome
	// Class is how the operation may be retried.
	Class retrypolicy.Class
	// ElsewhereAvailable reports that a compatible endpoint this call has
	// not failed on yet can take the retry. Such a failover waits neither
	// the backoff (which protects endpoints the call already failed on) nor
	// the provider's delay (which speaks for the endpoint that sent it, and
	// which the pool's cooldown honours). False (the zero value) applies
	// both: the retry may have to revisit a failed endpoint.
	ElsewhereAvailable bool
	// SlotElsewhere, for an attempt refused a few slots short of its
	// floor (Outcome.NotYet), reports that an endpoint this call has not
	// tried can take the retry and is not known to be short of that slot
	// too: the retry goes there at once. False: it waits for the chain to
	// advance by the gap first.
	SlotElsewhere bool
	// SlotNearest, when SlotElsewhere is false, is the fewest slots short
	// of the floor an endpoint the retry may use is known to be (0:
	// unknown): the wait is for that endpoint, not the one that refused
	// (NotYet), when it is nearer.
	SlotNearest uint64
	// TimeLeft is the time before the call's shared deadline: 0 or less
	// means it has passed.
	TimeLeft time.Duration
	// Once reports a call that allows no counted retry: its caller moves
	// on by itself (a fan-out copy, to the next endpoint), so a failure
	// the policy would retry stops it (RuleMaxRetries), and no retry it
	// never makes is reported. A transparent retry (never sent) still
	// runs.
	Once bool
	// Busy reports that the client's response byte budget refused the
	// attempt's answer (or, for a send, its reserve before dispatch): a
	// bound of the client's, shared by every endpoint, so a retry would
	// only ask a server for an answer again that the client cannot hold.
	Busy bool
}

// Ambiguous reports whether the attempt leaves its call ambiguous: the
// operation is not Idempotent (a send, an airdrop, a method nobody
// declared, a batch holding one), the attempt failed, and a server may
// have acted on it (Outcome.MayHaveActed). Such a call is never resent
// (Decide stops it) and its error says so.
func (a Input) Ambiguous() bool {
	return a.Class != retrypolicy.Idempotent && a.Failed() && a.MayHaveActed()
}

// Retries counts the retries one call has already been granted.
type Retries struct {
	// Counted retries count against Settings.MaxRetries.
	Counted int
	// Transparent retries re-sent attempts that never left the client.
	Transparent int
	// NotYet retries re-sent reads refused a few slots short of their
	// floor (RuleNotYet).
	NotYet int
}
