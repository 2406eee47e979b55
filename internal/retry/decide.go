package retry

import (
	"time"

	"github.com/solroute/solroute/retrypolicy"
)

// Decide is the whole retry rule set as one pure function: given settings
// s (taken as written), a failed attempt a and the retries
// the call was already granted, it says whether to retry, after how long
// and where. It knows nothing of the retry budget: Call.Next applies the
// budget around it.
//
// The checks run in order and the first that applies decides; anything
// not explicitly allowed stops. Every retry goes to another endpoint when
// one exists: each retryable cause is a fault of the endpoint that failed
// (down, slow, out of quota, erroring, behind or garbling), and a healthy
// endpoint is the better bet. See plans/002-retry-policy.md for the table
// and its sources.
func Decide(s retrypolicy.Settings, a Input, r Retries) retrypolicy.Decision {
	if s.Jitter == nil {
		s.Jitter = uniformJitter
	}
	return decide(&s, a, r)
}

// decide is Decide, with s.Jitter set.
func decide(s *retrypolicy.Settings, a Input, r Retries) retrypolicy.Decision {
	if rule, final := stopRule(a); final {
		return stop(rule)
	}
	// From here on the failure is retryable; what remains is how and when.
	// A read a few slots short of its floor is the client's own bound,
	// not an outage: it has a rule of its own (notyet.go).
	if notYet(s, a, r) {
		return notYetRetry(a)
	}
	return retryLater(s, a, r)
}

// stopRule returns the rule that ends the call whatever its retries and
// time left, and whether one applies.
func stopRule(a Input) (retrypolicy.Rule, bool) {
	// The caller gave up: nobody waits for another answer. The transport
	// should not even ask, but a stop here keeps it safe if it does.
	if a.Cause == retrypolicy.Canceled {
		return retrypolicy.RuleCanceled, true
	}
	// Values this package does not define cannot be judged: stop rather
	// than guess (a zero Class from an unregistered method lands here too).
	if !known(a) {
		return retrypolicy.RuleUnknownInput, true
	}
	// The one rule that makes a call safe to send once: an operation that
	// is not Idempotent (a send, an airdrop, an undeclared method, a batch
	// holding one) is never resent once a server may have acted on it.
	// Whatever the cause, the caller (who knows the signature and
	// blockhash) decides, not us. Only a proof that no server acted lets
	// it through (Outcome.MayHaveActed): never dispatched, or an answer
	// that is a refusal.
	if a.Ambiguous() {
		if a.Dispatch == retrypolicy.MaybeDispatched {
			return retrypolicy.RuleMaybeDispatched, true
		}
		return retrypolicy.RuleAnsweredMayHaveActed, true
	}
	// The client's response budget is full: no endpoint can help, and
	// the budget is never waited for (the caller may try again later).
	if a.Busy {
		return retrypolicy.RuleBusy, true
	}
	// The operation opted out of automatic retry altogether.
	if a.Class == retrypolicy.NotApplicable {
		return retrypolicy.RuleNotApplicable, true
	}
	// Failures that any endpoint would repeat: retrying only adds load.
	switch a.Cause {
	case retrypolicy.Request:
		return retrypolicy.RuleRequestError, true
	case retrypolicy.RPCApplication:
		return retrypolicy.RuleRPCApplication, true
	case retrypolicy.InvalidResponse:
		return retrypolicy.RuleInvalidResponse, true
	case retrypolicy.Refused:
		// This endpoint refused (credentials, plan, path): only another
		// one can help.
		if !a.ElsewhereAvailable {
			return retrypolicy.RuleRefused, true
		}
	}
	return 0, false
}

// retryLater decides how and when a retryable failure is retried, or
// stops it when its retries or its time are spent.
func retryLater(s *retrypolicy.Settings, a Input, r Retries) retrypolicy.Decision {
	// Never sent (gRFC A6 "never leaves the client"): retry at once,
	// uncounted, up to TransparentRetries so a dead pool cannot spin.
	transparent := a.Dispatch == retrypolicy.NotDispatched && a.Cause == retrypolicy.Connection &&
		r.Transparent < s.TransparentRetries
	if !transparent && (r.Counted >= s.MaxRetries || a.Once) {
		return stop(retrypolicy.RuleMaxRetries)
	}
	// Backoff protects an endpoint this call already failed on. Failing
	// over to one it has not tried is not a revisit: it goes at once (the
	// pool's buckets and the retry budget still bound the load).
	var delay time.Duration
	if !transparent && !a.ElsewhereAvailable {
		delay = jitter(s, backoffCeiling(s, r.Counted))
	}
	// The provider's own delay extends the backoff, capped: a Retry-After
	// of an hour must not park the call. It binds only the endpoint that
	// asked for it: when another endpoint can take the retry, the pool's
	// cooldown keeps the refusing one out and the retry need not wait.
	if a.ProviderDelay > 0 && s.MaxProviderDelay > 0 && !a.ElsewhereAvailable {
		delay = max(delay, min(a.ProviderDelay, s.MaxProviderDelay))
	}
	// A retry that cannot start before the deadline is wasted work.
	if delay >= a.TimeLeft {
		return stop(retrypolicy.RuleDeadline)
	}
	d := retrypolicy.Decision{Retry: true, Delay: delay, OtherEndpoint: true, Transparent: transparent}
	if transparent {
		d.Rule, d.Reason = retrypolicy.RuleTransparentRetry, transparentReason
	} else {
		d.Rule, d.Reason = retrypolicy.RuleRetry, retryReasons[a.Cause]
	}
	return d
}

// stop is the Decision of a stopping rule.
func stop(r retrypolicy.Rule) retrypolicy.Decision {
	return retrypolicy.Decision{Rule: r, Reason: stopReasons[r]}
}

// known reports whether a's cause, dispatch state and class are all
// values this package defines.
func known(a Input) bool {
	return a.Cause >= retrypolicy.Connection && a.Cause <= retrypolicy.RPCEndpoint &&
		a.Dispatch >= retrypolicy.NotDispatched && a.Dispatch <= retrypolicy.Answered &&
		a.Class >= retrypolicy.Idempotent && a.Class <= retrypolicy.NotApplicable
}
