package retry

import "github.com/solroute/solroute/retrypolicy"

// stopReasons are the Decision.Reason of every stopping rule.
var stopReasons = [...]string{
	retrypolicy.RuleCanceled:             "canceled: the caller's context ended",
	retrypolicy.RuleNotApplicable:        "not applicable: the method is never retried automatically",
	retrypolicy.RuleRequestError:         "request error: the same request fails anywhere",
	retrypolicy.RuleRPCApplication:       "rpc application error: any endpoint would answer the same",
	retrypolicy.RuleInvalidResponse:      "invalid response: the result would not decode anywhere",
	retrypolicy.RuleUnknownInput:         "unknown cause, dispatch state or class: not retried",
	retrypolicy.RuleMaybeDispatched:      "never after dispatch: may have reached the server",
	retrypolicy.RuleAnsweredMayHaveActed: "never after dispatch: the server answered and may have acted",
	retrypolicy.RuleMaxRetries:           "max retries reached",
	retrypolicy.RuleDeadline:             "deadline: the retry could not start in time",
	retrypolicy.RuleBudget:               "retry budget spent: too many calls are retrying",
	retrypolicy.RuleCallEnded:            "call already ended",
	retrypolicy.RuleSuperseded:           "superseded: another attempt of this call, run at the same time, decided its outcome",
	retrypolicy.RuleRefused:              "refused by this endpoint, and no other endpoint can take the call",
	retrypolicy.RuleBusy:                 "busy: the client's response byte budget is full; not retried, not waited for",
}

// retryReasons are the Decision.Reason of a counted retry, by cause.
var retryReasons = [...]string{
	retrypolicy.Connection:        "connection failed; retry elsewhere",
	retrypolicy.Timeout:           "timed out; retry elsewhere",
	retrypolicy.RateLimited:       "rate limited; retry elsewhere",
	retrypolicy.TemporaryHTTP:     "temporary http error; retry elsewhere",
	retrypolicy.NodeBehind:        "node behind; retry elsewhere",
	retrypolicy.MalformedResponse: "malformed response; retry elsewhere",
	retrypolicy.Refused:           "refused by the endpoint; retry elsewhere",
	retrypolicy.RPCEndpoint:       "endpoint's json-rpc error; retry elsewhere",
}

const transparentReason = "never sent; retry elsewhere at once, uncounted"

// Stop returns the Decision of a stopping rule r, with its reason: for a
// caller that records a stop it decided itself (an attempt overtaken by a
// hedge).
func Stop(r retrypolicy.Rule) retrypolicy.Decision { return stop(r) }

// Retrying reports whether r is one of the retry rules.
func Retrying(r retrypolicy.Rule) bool {
	return r == retrypolicy.RuleTransparentRetry || r == retrypolicy.RuleRetry || r == retrypolicy.RuleNotYet
}
