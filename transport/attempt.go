package transport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"time"

	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
)

// drainLimit is how much of a failure response's body is read to let
// net/http reuse the connection; larger bodies close it instead.
const drainLimit = 64 << 10

// outcome is what one attempt proved.
type outcome struct {
	cause      retrypolicy.Cause
	dispatch   retrypolicy.DispatchState
	status     int
	rpcCode    int
	retryAfter time.Duration // provider delay from Retry-After (0 = none)
	err        error         // secret-free; nil on success
	// sent is false when the attempt ended before anything was tried (no
	// time left): the permit is released, not charged.
	sent bool
	// local is true when the failure was the client's own bound, not the
	// endpoint's doing: the response size limit, or the call's time left
	// cutting the attempt below its own timeout. It does not put the
	// endpoint in doubt (noteDoubt).
	local bool
}

// exchange is what one kind of call does with a 2xx response.
type exchange interface {
	// handle reads resp (a 2xx) and reports cause, rpcCode and a raw error;
	// the attempt classifies transport-level read errors itself.
	handle(c *Client, req *http.Request, resp *http.Response) (cause retrypolicy.Cause, rpcCode int, err error)
}

// callState is one call: what is sent and how it may be retried.
type callState struct {
	method   string
	body     []byte
	class    retrypolicy.Class
	deadline time.Time
	// attemptMax bounds one attempt; 0 means no bound of its own.
	attemptMax time.Duration
	x          exchange
}

// attempt makes one attempt on pm's endpoint under a per-attempt timeout
// of min(pm.RequestTimeout(), the call's attemptMax, time left before the
// call's deadline), measured on the pool's clock.
func (c *Client) attempt(ctx context.Context, cs *callState, pm *pool.Permit) outcome {
	ep := c.endpoints[pm.Endpoint()]
	if ep == nil { // the pool named an endpoint it did not list in Specs
		return outcome{cause: retrypolicy.Connection, dispatch: retrypolicy.NotDispatched,
			err: &attemptError{endpoint: pm.Endpoint(), cause: retrypolicy.Connection, msg: "endpoint unknown to the transport"}}
	}
	own := pm.RequestTimeout()
	if cs.attemptMax > 0 {
		own = min(own, cs.attemptMax)
	}
	left := cs.deadline.Sub(c.clock.Now())
	timeout := min(own, left)
	if timeout <= 0 {
		return outcome{cause: retrypolicy.Timeout, dispatch: retrypolicy.NotDispatched,
			err: ep.wrapErr(retrypolicy.Timeout, errNoTimeLeft)}
	}
	actx, cancel := context.WithCancelCause(ctx)
	timer := c.clock.AfterFunc(timeout, func() { cancel(errAttemptTimeout) })
	defer func() {
		timer.Stop()
		cancel(nil)
	}()
	o := c.post(ctx, actx, cs, ep)
	switch {
	case o.cause == retrypolicy.Timeout && left < own && errors.Is(context.Cause(actx), errAttemptTimeout):
		o.local = true // the call's time ran out, not the endpoint's
	case o.cause == retrypolicy.MalformedResponse && errors.Is(o.err, errTooLarge):
		o.local = true // over our own size limit
	}
	return o
}

// post sends cs's body to ep under actx (the attempt's context, a
// child of the caller's ctx) and classifies what came back.
func (c *Client) post(ctx, actx context.Context, cs *callState, ep *endpointClient) outcome {
	tracker := newDispatchTracker()
	req := ep.newRequest(httptrace.WithClientTrace(actx, &tracker.trace), cs.body,
		cs.class == retrypolicy.Idempotent)
	o := outcome{sent: true}
	resp, err := ep.tr.RoundTrip(req)
	if err != nil {
		o.dispatch = tracker.state()
		o.cause = classifyErr(ctx, actx, err)
		o.err = ep.wrapErr(o.cause, err)
		return o
	}
	defer resp.Body.Close()
	o.dispatch = retrypolicy.Answered
	o.status = resp.StatusCode
	if cause := classifyStatus(resp.StatusCode); cause != 0 {
		o.cause = cause
		if ra := resp.Header.Get("Retry-After"); ra != "" &&
			(cause == retrypolicy.RateLimited || resp.StatusCode == http.StatusServiceUnavailable) {
			if d, ok := retrypolicy.ParseRetryAfter(ra, c.clock.Now()); ok {
				o.retryAfter = d
			}
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, drainLimit))
		o.err = ep.wrapErr(cause, &StatusError{StatusCode: resp.StatusCode, RetryAfter: o.retryAfter})
		return o
	}
	cause, code, err := cs.x.handle(c, req, resp)
	o.rpcCode = code
	if err == nil {
		return o
	}
	if cause == 0 { // a read error: the exchange could not tell why
		cause = classifyErr(ctx, actx, err)
	} else if cause == retrypolicy.InvalidResponse && ctx.Err() != nil {
		cause = retrypolicy.Canceled // a callback that failed because the caller gave up
	}
	if cause == retrypolicy.RateLimited {
		if d, ok := retrypolicy.ParseRetryAfter(resp.Header.Get("Retry-After"), c.clock.Now()); ok {
			o.retryAfter = d
		}
	}
	o.cause = cause
	o.err = ep.wrapErr(cause, err)
	return o
}

// newRequest builds one POST of body from the endpoint's template (one
// shallow copy: URL and header map are shared read-only). The body is
// rewindable (GetBody set) only for Idempotent calls: with GetBody nil
// net/http cannot replay a request on its own once it has started writing
// it (HTTP/1 replays after "nothing written" and HTTP/2 replays after some
// stream resets both need GetBody), so every delivery of a
// NeverAfterDispatch request is one attempt the call loop saw. No
// Idempotency-Key header is ever set: it would make a POST replayable.
func (ep *endpointClient) newRequest(ctx context.Context, body []byte, rewindable bool) *http.Request {
	req := ep.template.WithContext(ctx)
	// io.NopCloser over *bytes.Reader is a body net/http recognises as in
	// memory: headers and body go out in one write. Any other type makes it
	// flush the headers first (a second packet per request).
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	if rewindable {
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return req
}

// record reports an outcome to the permit that admitted the attempt.
func record(pm *pool.Permit, o *outcome) {
	switch o.cause {
	case 0, retrypolicy.RPCApplication, retrypolicy.InvalidResponse:
		// The endpoint answered correctly; the answer is the caller's.
		pm.Success()
	case retrypolicy.Canceled:
		pm.Release()
	case retrypolicy.RateLimited:
		pm.RateLimited(o.retryAfter)
	case retrypolicy.TemporaryHTTP:
		if o.status == http.StatusServiceUnavailable && o.retryAfter > 0 {
			pm.RateLimited(o.retryAfter) // the provider asked for a pause
		} else {
			pm.Failure()
		}
	default:
		if o.sent {
			pm.Failure()
		} else {
			pm.Release()
		}
	}
}

// trimPrefix drops the package prefix of the transport's own error texts
// when nested in another transport message.
func trimPrefix(s string) string { return strings.TrimPrefix(s, "transport: ") }
