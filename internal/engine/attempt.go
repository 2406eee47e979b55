package engine

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/retry"
	"github.com/solroute/solroute/internal/slots"
	"github.com/solroute/solroute/internal/wire"
	"github.com/solroute/solroute/transport"

	"github.com/solroute/solroute/retrypolicy"
)

// drainLimit is how much of a failure response's body is read to let
// net/http reuse the connection; larger bodies close it instead.
const drainLimit = 64 << 10

// outcome is what one attempt proved, and the error that says so.
type outcome struct {
	retrypolicy.Outcome
	err error // secret-free; nil on success
	// slot is the slot the endpoint answered or refused at, when the call
	// tracks slots (slots.Plan); 0: none.
	slot uint64
	// timeout is the attempt's own bound (Attempt.Timeout).
	timeout time.Duration
	// atDeadline: the attempt timed out at the call's deadline, or had
	// no time left before it.
	atDeadline bool
	// isBusy: the response byte budget refused the answer (budget.go).
	isBusy bool
	// throttled: an answer the call uses said the endpoint is over its
	// rate limit (a batch member's 429), with the provider's delay in
	// throttleDelay: the permit cools the role before recording the
	// answer (callLoop.report).
	throttled     bool
	throttleDelay time.Duration
}

// exchange is what one kind of call does with a 2xx response.
type exchange interface {
	// handle reads resp (a 2xx) and reports cause, rpcCode, the slot the
	// endpoint answered (or refused) at when the call tracks slots (0:
	// none) and a raw error; the attempt classifies transport-level read
	// errors itself.
	handle(c *Engine, req *http.Request, resp *http.Response) (cause retrypolicy.Cause, rpcCode int, slot uint64, err error)
}

// callState is one call: what is sent and how it may be retried.
type callState struct {
	method   string
	body     []byte
	class    retrypolicy.Class
	deadline time.Time
	// ctxDeadline: deadline is the caller's context's.
	ctxDeadline bool
	// ownTimeout is the method's own budget (methods.Method.Timeout),
	// replacing the endpoints' request timeout; minTimeout raises theirs
	// (a batch's longest member's). 0: none.
	ownTimeout, minTimeout time.Duration
	// attemptMax bounds one attempt by the fixed rule (Settings.
	// AttemptTimeout or half the budget); 0 means no bound of its own.
	attemptMax time.Duration
	// cuttable: the attempt about to run may be cut before the call's
	// deadline (see Engine.cuttable).
	cuttable bool
	// adaptive marks a call whose attempts the adaptive rule may bound
	// (attemptTimeout); retries counts the counted retries granted so far,
	// before the attempt about to run.
	adaptive bool
	retries  int
	x        exchange
	// slots is what the call does with slots (nil: nothing); when set,
	// it points at plan.
	slots *slots.Plan
	plan  slots.Plan
	// batch is the number of requests of a batch; 0 for a single call.
	// known is set when the registry knows the method (a batch: always).
	batch int
	known bool
	// history: a history read (admission.ReadsHistory; Request.History).
	history bool
	// obs are the Observers the call started with (the engine's, then
	// its context's); info describes the call to them (unset when nobody
	// observes the call); attempts counts the attempts started.
	obs      []transport.Observer
	info     transport.CallInfo
	attempts int
	// loop, when set, is room for the call's loop (intoCall); nil: the
	// loop is allocated on its own.
	loop *callLoop
}

// attempt makes one attempt on pm's endpoint under a per-attempt timeout
// of min(attemptTimeout's bound, time left before the call's deadline),
// measured on the pool's clock (armAttempt: a request that is not
// Idempotent, once handed to a connection, runs until the deadline). It
// reads the clock once before the attempt and once after: end is when it
// ended.
func (c *Engine) attempt(ctx context.Context, cs *callState, pm *admission.Permit) (o outcome, end time.Time) {
	return c.attemptCancelable(ctx, cs, pm, nil)
}

// attemptCancelable is attempt, handing its timer to fc once armed (nil:
// none), so that a hedge can cancel it (firstCancel).
func (c *Engine) attemptCancelable(ctx context.Context, cs *callState, pm *admission.Permit, fc *firstCancel) (o outcome, end time.Time) {
	ep := c.endpoints[pm.Endpoint()]
	now := c.clock.Now()
	if ep == nil { // the pool named an endpoint it did not list in Specs
		return outcome{Outcome: retrypolicy.Outcome{Cause: retrypolicy.Connection, Dispatch: retrypolicy.NotDispatched,
			Fault: retrypolicy.LocalFault},
			err: &attemptError{endpoint: pm.Endpoint(), msg: "endpoint unknown to the transport"}}, now
	}
	fair, bound, adaptive := c.attemptTimeout(cs, pm, now)
	left := cs.deadline.Sub(now)
	timeout := min(bound, left)
	if timeout <= 0 {
		return outcome{Outcome: retrypolicy.Outcome{Cause: retrypolicy.Timeout, Dispatch: retrypolicy.NotDispatched,
			Fault: retrypolicy.LocalFault}, err: ep.wrapErr(errNoTimeLeft), atDeadline: true}, now
	}
	timer := c.newAttemptTimer(cs, now, timeout)
	actx, cancel := context.WithCancelCause(ctx)
	timer.arm(cancel)
	if fc != nil {
		fc.set(timer)
	}
	o = c.post(ctx, actx, cs, ep, timer)
	o.timeout = timer.stop()
	cancel(nil)
	end = c.clock.Now()
	c.sawSlot(cs, pm, &o, end) // the slot it answered or refused at
	// Its own timer, or the caller's deadline, which is the call's
	// (classifyErr).
	timedOut := o.Cause == retrypolicy.Timeout && (errors.Is(context.Cause(actx), errAttemptTimeout) || ctx.Err() != nil)
	o.atDeadline = timedOut && !end.Before(cs.deadline)
	if adaptive {
		c.cuts.add(end, timedOut && left >= fair)
	}
	switch {
	case o.isBusy:
		o.Fault = retrypolicy.LocalFault // our memory, not the endpoint's doing
	case timedOut && left < fair:
		o.Fault = retrypolicy.LocalFault // the call's time ran out before the rule's bound: not the endpoint's fault
	case o.Cause == retrypolicy.MalformedResponse && errors.Is(o.err, wire.ErrTooLarge):
		o.Fault = retrypolicy.LocalFault // over our own size limit
	}
	return o, end
}

// post sends cs's body to ep under actx (the attempt's context, a
// child of the caller's ctx), with at's tracker installed and its body
// reader, and builds the attempt's outcome: the one place where it is
// judged what happened.
func (c *Engine) post(ctx, actx context.Context, cs *callState, ep *endpointClient, at *attemptTimer) outcome {
	tracker, charge := &at.tracker, &at.charge
	var o outcome
	defer charge.done() // after the exchange: the body was decoded or dropped
	if cs.class != retrypolicy.Idempotent {
		if e := charge.reserve(&c.budget, sendReserve); e != nil {
			return o.busy(ep, cs, retrypolicy.NotDispatched, e)
		}
	}
	req := ep.shapedRequest(c.requestContext(actx, at), cs.method, cs.body,
		cs.class == retrypolicy.Idempotent, &at.body)
	resp, err := ep.tr.RoundTrip(req)
	if err != nil {
		o.Dispatch = tracker.state()
		o.fail(ep, classifyErr(ctx, actx, err), err)
		return o
	}
	defer resp.Body.Close()
	o.Dispatch = retrypolicy.Answered
	o.HTTPStatus = resp.StatusCode
	if cause := retry.StatusCause(resp.StatusCode); cause != 0 {
		if cause == retrypolicy.RateLimited || resp.StatusCode == http.StatusServiceUnavailable {
			o.ProviderDelay = c.retryAfter(resp)
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, drainLimit))
		o.fail(ep, cause, &transport.StatusError{StatusCode: resp.StatusCode, RetryAfter: o.ProviderDelay})
		return o
	}
	if e := charge.admit(&c.budget, resp, c.maxBody); e != nil {
		return o.busy(ep, cs, retrypolicy.Answered, e)
	}
	cause, code, slot, err := cs.x.handle(c, req, resp)
	o.RPCCode, o.slot = code, slot
	if err == nil {
		if cs.batch > 0 {
			bx := cs.x.(*batchExchange)
			bx.redactMembers(ep)
			if bx.limited {
				o.throttled, o.throttleDelay = true, c.retryAfter(resp)
			}
		}
		return o
	}
	if charge.err != nil { // refused part way through the body
		return o.busy(ep, cs, retrypolicy.Answered, charge.err)
	}
	if cause == 0 { // a read error: the exchange could not tell why
		cause = classifyErr(ctx, actx, err)
	} else if cause == retrypolicy.InvalidResponse && ctx.Err() != nil {
		cause = retrypolicy.Canceled // a callback that failed because the caller gave up
	}
	if cause == retrypolicy.RateLimited {
		o.ProviderDelay = c.retryAfter(resp)
	}
	o.fail(ep, cause, err)
	return o
}

// fail records a failure of cause with its error, made secret-free, and
// whose doing it was: the caller's for a cancellation, the request's for
// an answer any endpoint would repeat, the endpoint's otherwise. (attempt
// then moves the client's own bounds to LocalFault.)
func (o *outcome) fail(ep *endpointClient, cause retrypolicy.Cause, err error) {
	o.Cause = cause
	switch cause {
	case retrypolicy.Canceled:
		o.Fault = retrypolicy.CallerFault
	case retrypolicy.Request, retrypolicy.RPCApplication, retrypolicy.InvalidResponse:
		o.Fault = retrypolicy.RequestFault
	default:
		o.Fault = retrypolicy.EndpointFault
	}
	o.err = ep.wrapErr(err)
}

// retryAfter parses resp's Retry-After on the pool's clock: 0 when absent
// or invalid.
func (c *Engine) retryAfter(resp *http.Response) time.Duration {
	ra := resp.Header.Get("Retry-After")
	if ra == "" {
		return 0
	}
	d, _ := retry.ParseRetryAfter(ra, c.clock.Now())
	return d
}

// newRequest builds one POST of body, read through rd, from the
// endpoint's template (one shallow copy: URL and header map are shared
// read-only). The body is
// rewindable (GetBody set) only for Idempotent calls: with GetBody nil
// net/http cannot replay a request on its own once it has started writing
// it (HTTP/1 replays after "nothing written" and HTTP/2 replays after some
// stream resets both need GetBody), so every delivery of a
// NeverAfterDispatch request is one attempt the call loop saw. No
// Idempotency-Key header is ever set: it would make a POST replayable.
func (ep *endpointClient) newRequest(ctx context.Context, body []byte, rewindable bool, rd *bytes.Reader) *http.Request {
	req := ep.template.WithContext(ctx)
	// io.NopCloser over *bytes.Reader is a body net/http recognises as in
	// memory: headers and body go out in one write. Any other type makes it
	// flush the headers first (a second packet per request). rd is the
	// attempt's own (attemptTimer.body): one allocation fewer.
	rd.Reset(body)
	req.Body = io.NopCloser(rd)
	req.ContentLength = int64(len(body))
	if rewindable {
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return req
}

// trimPrefix drops the package prefix of the transport's own error texts
// when nested in another transport message.
func trimPrefix(s string) string { return strings.TrimPrefix(s, "transport: ") }
