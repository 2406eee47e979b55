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
}

// stopReasons are the Decision.Reason of every stopping rule.
var stopReasons = [...]string{
	RuleCanceled:             "canceled: the caller's context ended",
	RuleNotApplicable:        "not applicable: the method is never retried automatically",
	RuleRequestError:         "request error: the same request fails anywhere",
	RuleRPCApplication:       "rpc application error: any endpoint would answer the same",
	RuleInvalidResponse:      "invalid response: the result would not decode anywhere",
	RuleUnknownInput:         "unknown cause, dispatch state or class: not retried",
	RuleMaybeDispatched:      "never after dispatch: may have reached the server",
	RuleAnsweredMayHaveActed: "never after dispatch: the server answered and may have acted",
	RuleMaxRetries:           "max retries reached",
	RuleDeadline:             "deadline: the retry could not start in time",
	RuleBudget:               "retry budget spent: too many calls are retrying",
	RuleCallEnded:            "call already ended",
	RuleSuperseded:           "superseded: another attempt of this call, run at the same time, decided its outcome",
	RuleRefused:              "refused by this endpoint, and no other endpoint can take the call",
}

// retryReasons are the Decision.Reason of a counted retry, by cause.
var retryReasons = [...]string{
	Connection:        "connection failed; retry elsewhere",
	Timeout:           "timed out; retry elsewhere",
	RateLimited:       "rate limited; retry elsewhere",
	TemporaryHTTP:     "temporary http error; retry elsewhere",
	NodeBehind:        "node behind; retry elsewhere",
	MalformedResponse: "malformed response; retry elsewhere",
	Refused:           "refused by the endpoint; retry elsewhere",
	RPCEndpoint:       "endpoint's json-rpc error; retry elsewhere",
}

const transparentReason = "never sent; retry elsewhere at once, uncounted"

// Stop returns the Decision of a stopping rule r, with its reason: for a
// caller that records a stop it decided itself (the transport's
// never-after-dispatch guard, an attempt overtaken by a hedge).
func (r Rule) Stop() Decision { return stop(r) }

// Retrying reports whether the rule is one of the retry rules.
func (r Rule) Retrying() bool { return r == RuleTransparentRetry || r == RuleRetry || r == RuleNotYet }

// String returns the rule's kebab-case name ("max-retries"), "none" for
// the zero Rule and "rule(N)" for an unknown value.
func (r Rule) String() string { return enumName("rule", ruleNames, r) }

// MarshalText encodes r as its String; it never fails.
func (r Rule) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText parses a name written by MarshalText ("none" included).
func (r *Rule) UnmarshalText(text []byte) error {
	return enumParse(r, "rule", ruleNames, text)
}
