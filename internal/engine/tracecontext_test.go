package engine

import (
	"context"
	"errors"
	"net/http/httptrace"
	"testing"
)

type ctxKey struct{}

func TestTraceKeyFound(t *testing.T) {
	// On this Go the engine finds httptrace's key, so an attempt's trace
	// costs no context.WithValue (TestCallAllocations counts on it).
	if traceKey() == nil {
		t.Fatal("httptrace's key not found: every attempt pays httptrace.WithClientTrace")
	}
}

func TestRequestContextIsTheAttempts(t *testing.T) {
	// The request's context carries the attempt's trace and is, for
	// everything else, the attempt's context: its values, its Done, its
	// cause, and its cancellation of a child net/http makes under it.
	c := &Engine{traceKey: traceKey()}
	parent := context.WithValue(context.Background(), ctxKey{}, "v")
	actx, cancel := context.WithCancelCause(parent)
	at := &attemptTimer{}
	at.tracker.init()
	rctx := c.requestContext(actx, at)
	if rctx != context.Context(&at.ctx) {
		t.Fatal("the request's context is not the attempt's traceContext")
	}
	if httptrace.ContextClientTrace(rctx) != &at.tracker.trace {
		t.Fatal("httptrace does not find the attempt's trace")
	}
	if rctx.Value(ctxKey{}) != "v" || rctx.Done() != actx.Done() {
		t.Fatal("the request's context hides the attempt's values or Done")
	}
	child, stop := context.WithCancel(rctx)
	defer stop()
	cause := errors.New("attempt bound")
	cancel(cause)
	// Canceled by cancel itself, before it returns: a direct child of the
	// attempt's cancelCtx, not one a goroutine watches.
	if child.Err() == nil {
		t.Fatal("a child of the request's context outlived its cancellation")
	}
	if context.Cause(rctx) != cause || context.Cause(child) != cause {
		t.Fatalf("cause %v and %v, want the attempt's", context.Cause(rctx), context.Cause(child))
	}
}

func TestRequestContextKeepsTheCallersTrace(t *testing.T) {
	// A caller's own ClientTrace is composed with the attempt's, as
	// httptrace.WithClientTrace does: both see the events.
	c := &Engine{traceKey: traceKey()}
	var theirs int
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		GotFirstResponseByte: func() { theirs++ }})
	at := &attemptTimer{}
	at.tracker.init()
	tr := httptrace.ContextClientTrace(c.requestContext(ctx, at))
	tr.GotFirstResponseByte()
	if theirs != 1 || at.tracker.marks.Load()&markAnswered == 0 {
		t.Fatalf("caller's hook ran %d times, attempt's marks %b: want both", theirs, at.tracker.marks.Load())
	}
}
