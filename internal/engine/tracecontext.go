package engine

import (
	"context"
	"net/http/httptrace"
)

// traceContext is an attempt's request context: the attempt's own
// cancelable context, which also answers httptrace's lookup of the
// attempt's ClientTrace. It stands in for httptrace.WithClientTrace's
// context.WithValue, one allocation a call fewer: it lives in the
// attemptTimer (plans/015-call-cost.md, "Second pass").
//
// Everything but that one key is the attempt context's own: Done, Err,
// Deadline and every other Value, &context's cancelCtxKey included. So
// context.Cause sees the attempt's cause through it, and net/http's
// context.WithCancelCause under it finds the attempt's cancelCtx and
// registers as its child, without a goroutine, as under a valueCtx.
type traceContext struct {
	context.Context
	// key is httptrace's key (traceKey); trace the attempt's hooks.
	key   any
	trace *httptrace.ClientTrace
}

// Value returns the attempt's trace for httptrace's key, and the attempt
// context's value for any other.
func (c *traceContext) Value(key any) any {
	if key == c.key {
		return c.trace
	}
	return c.Context.Value(key)
}

// keyProbe is a context that records the first key it is asked for.
type keyProbe struct {
	context.Context
	key any
}

// Value records key and knows nothing.
func (p *keyProbe) Value(key any) any {
	if p.key == nil {
		p.key = key
	}
	return nil
}

// traceKey returns the key httptrace looks a ClientTrace up with (an
// unexported type of its own), found by asking a context that records what
// it is asked for, and checked: httptrace must find a trace a
// traceContext holds under it. Nil when the check fails (a later Go that
// looks traces up otherwise): the engine then uses
// httptrace.WithClientTrace.
func traceKey() any {
	p := &keyProbe{Context: context.Background()}
	httptrace.ContextClientTrace(p)
	want := &httptrace.ClientTrace{}
	tc := &traceContext{Context: context.Background(), key: p.key, trace: want}
	if p.key == nil || httptrace.ContextClientTrace(tc) != want {
		return nil
	}
	return p.key
}

// requestContext returns the context of at's request under actx, the
// attempt's context: a traceContext in at, or, when actx already carries a
// ClientTrace (the caller's, which httptrace.WithClientTrace composes with
// the attempt's hooks) or traceKey found none, what
// httptrace.WithClientTrace returns.
func (c *Engine) requestContext(actx context.Context, at *attemptTimer) context.Context {
	if c.traceKey == nil || httptrace.ContextClientTrace(actx) != nil {
		return httptrace.WithClientTrace(actx, &at.tracker.trace)
	}
	at.ctx = traceContext{Context: actx, key: c.traceKey, trace: &at.tracker.trace}
	return &at.ctx
}
