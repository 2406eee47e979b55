package retrypolicy

// Rule names the rule that made a Decision, so callers can branch on it
// without reading Decision.Reason. The zero Rule belongs to the zero
// Decision (no decision was made).
type Rule uint8

const (
	// RuleTransparentRetry: the attempt provably never left the client; it
	// is retried at once and does not count against MaxRetries.
	RuleTransparentRetry Rule = iota + 1
	// RuleRetry: a retryable failure within every bound.
	RuleRetry
	// RuleCanceled: the caller's context ended.
	RuleCanceled
	// RuleNotApplicable: the operation is never retried automatically.
	RuleNotApplicable
	// RuleRequestError: the request itself is wrong (HTTP 4xx).
	RuleRequestError
	// RuleRPCApplication: a JSON-RPC error that any endpoint would repeat.
	RuleRPCApplication
	// RuleInvalidResponse: the result does not decode; it would not anywhere.
	RuleInvalidResponse
	// RuleUnknownInput: the attempt's cause, dispatch state or class is not
	// one this package defines.
	RuleUnknownInput
	// RuleMaybeDispatched: a request that is not Idempotent may have
	// reached a server and no answer came; it is never resent.
	RuleMaybeDispatched
	// RuleAnsweredMayHaveActed: a server answered a request that is not
	// Idempotent with something that does not prove it did not act (a 5xx,
	// a broken body, an undecodable result, a JSON-RPC error that may
	// follow execution).
	RuleAnsweredMayHaveActed
	// RuleMaxRetries: the call has used MaxRetries counted retries.
	RuleMaxRetries
	// RuleDeadline: the retry could not start before the call's deadline.
	RuleDeadline
	// RuleBudget: the retry budget shared by the client's calls is spent.
	RuleBudget
	// RuleCallEnded: Next was called after End.
	RuleCallEnded
	// RuleSuperseded: another attempt of the same call, running at the
	// same time (a hedge, see Call.Hedge), decided the call's outcome: this
	// one was canceled when the other answered, or failed while the other
	// still ran. It names an attempt, not a retry decision.
	RuleSuperseded
	// RuleRefused: the endpoint refused the request (Refused) and no other
	// endpoint can take the retry.
	RuleRefused
	// RuleNotYet: a read refused a few slots short of its floor
	// (Outcome.NotYet) is retried where the slot is, at once, or after
	// the chain has had time to get there; it counts neither against
	// MaxRetries nor against the retry budget (notyet.go).
	RuleNotYet
	// RuleBusy: the client's response byte budget refused the answer
	// (solroute.ErrBusy): the client's own memory, not the endpoint, so
	// it is neither retried elsewhere nor waited for; the caller may try
	// again later. A send so refused after dispatch is ambiguous
	// (RuleAnsweredMayHaveActed) instead.
	RuleBusy
)

var ruleNames = []string{
	0:                        "none",
	RuleTransparentRetry:     "transparent-retry",
	RuleRetry:                "retry",
	RuleCanceled:             "canceled",
	RuleNotApplicable:        "not-applicable",
	RuleRequestError:         "request-error",
	RuleRPCApplication:       "rpc-application",
	RuleInvalidResponse:      "invalid-response",
	RuleUnknownInput:         "unknown-input",
	RuleMaybeDispatched:      "maybe-dispatched",
	RuleAnsweredMayHaveActed: "answered-may-have-acted",
	RuleMaxRetries:           "max-retries",
	RuleDeadline:             "deadline",
	RuleBudget:               "budget",
	RuleCallEnded:            "call-ended",
	RuleSuperseded:           "superseded",
	RuleRefused:              "refused",
	RuleNotYet:               "not-yet",
	RuleBusy:                 "busy",
}

// String returns the rule's kebab-case name ("max-retries"), "none" for
// the zero Rule and "rule(N)" for an unknown value.
func (r Rule) String() string { return enumName("rule", ruleNames, r) }

// MarshalText encodes r as its String; it never fails.
func (r Rule) MarshalText() ([]byte, error) { return []byte(r.String()), nil }
