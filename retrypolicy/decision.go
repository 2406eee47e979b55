package retrypolicy

import "time"

// Decision says what to do after an attempt.
type Decision struct {
	// Retry reports whether to make another attempt.
	Retry bool
	// Delay is how long to wait first (0 when Retry is false).
	Delay time.Duration
	// OtherEndpoint reports that the next attempt must avoid the endpoint
	// that just failed (when another one exists). It is false when Retry
	// is false, and for a not-yet retry (NotYet): the refuser is judged by
	// the slot it refused at, and may be the nearest once the chain moves.
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
