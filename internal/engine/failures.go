package engine

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// failures is the call's failure log: what its error will say (every
// attempt, the last failure, and whether an attempt left the call
// ambiguous).
type failures struct {
	method    string
	attempts  []transport.Attempt
	lastErr   error
	lastCause retrypolicy.Cause
	ambiguous bool
}

// add records attempt a.
func (r *failures) add(a transport.Attempt) {
	r.attempts = append(r.attempts, a)
	if a.Failed() && a.Decision.Rule != retrypolicy.RuleSuperseded {
		r.lastErr, r.lastCause = a.Err, a.Cause
	}
}

// acquireFailed is the call's error when Acquire returned err: before any
// attempt its cause is Canceled (ctx ended) or Timeout (the pool admitted
// none before the deadline).
func (r *failures) acquireFailed(ctx context.Context, err error) error {
	if len(r.attempts) == 0 {
		switch {
		case ctx.Err() != nil:
			r.lastCause = retrypolicy.Canceled
		case errors.Is(err, admission.ErrDeadline):
			r.lastCause = retrypolicy.Timeout
		}
	}
	return r.err(err)
}

// err is the *CallError that ends the call, with extra after the last
// attempt's error.
func (r *failures) err(extra ...error) error {
	// By number: a hedged pair's attempts are recorded as they end, the
	// side one first.
	slices.SortStableFunc(r.attempts, func(a, b transport.Attempt) int { return cmp.Compare(a.Number, b.Number) })
	ce := &transport.CallError{Method: r.method, Cause: r.lastCause, Attempts: r.attempts}
	if r.lastErr != nil {
		ce.Errs = append(ce.Errs, r.lastErr)
	}
	ce.Errs = append(ce.Errs, extra...)
	if r.ambiguous {
		ce.Ambiguous, ce.Errs = true, append(ce.Errs, ErrAmbiguousDispatch)
	}
	return ce
}

// endedBy is what the call's error adds when the call stops after the
// outcome o and the decision d because of time: the caller's context
// error when the context ended (and its cause, when that is another
// error); context.DeadlineExceeded when the call's deadline is the
// caller's and the call stopped at it (its last attempt ran until it, or
// no retry could start before it), although the context may not have
// noticed yet (the pool's clock fired first). A call stopped at its own
// budget (the endpoints' request_timeout, the method's timeout) adds
// nothing: its Cause says Timeout.
func (cs *callState) endedBy(ctx context.Context, o *outcome, d retrypolicy.Decision) []error {
	if ctx.Err() != nil {
		return contextErrs(ctx)
	}
	if cs.ctxDeadline && (o.atDeadline || d.Rule == retrypolicy.RuleDeadline) {
		return []error{context.DeadlineExceeded}
	}
	return nil
}

// contextErrs is the error of ctx, which ended, and its cause when that
// is another error (context.WithCancelCause).
func contextErrs(ctx context.Context) []error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return []error{err, cause}
	}
	return []error{err}
}
