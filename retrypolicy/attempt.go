package retrypolicy

import "time"

// Attempt is one failed attempt of one call: its Outcome and the facts of
// the call a decision is made from.
type Attempt struct {
	// Number is 1 for the first attempt of a call. It is informative: a
	// Call counts its own retries, and Decide takes them as Retries.
	Number int
	// Outcome is what happened to the attempt, as the transport built it.
	Outcome
	// Class is how the operation may be retried.
	Class Class
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
	// TimeLeft is the time before the call's shared deadline: 0 or less
	// means it has passed.
	TimeLeft time.Duration
}

// Ambiguous reports whether the attempt leaves its call ambiguous: the
// operation is not Idempotent (a send, an airdrop, a method nobody
// declared, a batch holding one), the attempt failed, and a server may
// have acted on it (Outcome.MayHaveActed). Such a call is never resent
// (Decide stops it) and its error says so.
func (a Attempt) Ambiguous() bool {
	return a.Class != Idempotent && a.Failed() && a.MayHaveActed()
}

// Decision says what to do after an attempt.
type Decision struct {
	// Retry reports whether to make another attempt.
	Retry bool
	// Delay is how long to wait first (0 when Retry is false).
	Delay time.Duration
	// OtherEndpoint reports that the next attempt must avoid the endpoint
	// that just failed (when another one exists). It is false when Retry
	// is false.
	OtherEndpoint bool
	// Transparent reports a retry of an attempt that provably never left
	// the client: it does not count against MaxRetries.
	Transparent bool
	// NotYet reports a retry of a read refused a few slots short of its
	// floor (RuleNotYet): it counts neither against MaxRetries nor
	// against the retry budget.
	NotYet bool
	// Reason says why, in a few words ("rate limited; retry elsewhere",
	// "never after dispatch: may have reached the server", ...).
	Reason string
	// Rule names the rule that decided, for callers that branch on it.
	Rule Rule
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
