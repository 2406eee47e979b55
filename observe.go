package solroute

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// Observe adds o to the Observers of every call that starts from now on
// (a call under way keeps those it started with): how package metrics and
// package tracing plug into a Client (see docs/observability.md).
// Observers are never removed; adding one twice makes it see everything
// twice. A nil o is ignored. Hooks.Observers are added this way by New.
func (c *Client) Observe(o transport.Observer) {
	c.engine.Observe(o)
	c.subs.watch(o)   // its subscription events too, when it watches them
	c.copies.watch(o) // and the fan-outs' copies (fanout.go)
}

// RetryBudget returns the client's retry budget now: the calls and
// counted retries under way and the tokens left (see retrypolicy.Usage).
func (c *Client) RetryBudget() retrypolicy.Usage { return c.engine.RetryBudget() }

// CallRecord is an Observer that keeps every call it observes, each with
// every attempt (endpoint, duration, admission wait, dispatch state,
// cause, decision, error): attach it to one context with WithObserver (or
// to a client with Observe) and read it when the calls are done. Its zero
// value is ready; it is safe for concurrent use.
type CallRecord struct {
	mu    sync.Mutex
	calls []RecordedCall
}

// RecordedCall is one call of a CallRecord.
type RecordedCall struct {
	// Method is the JSON-RPC method; "batch" for CallBatch.
	Method string
	// Attempts lists every attempt in order, the successful one included.
	Attempts []transport.Attempt
	// Err is nil on success, the call's *transport.CallError otherwise.
	Err error
	// Duration is the call's time on the client's clock.
	Duration time.Duration
}

// Calls returns a copy of the calls recorded so far, in the order they
// ended.
func (r *CallRecord) Calls() []RecordedCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]RecordedCall, len(r.calls))
	for i, c := range r.calls {
		c.Attempts = append([]transport.Attempt(nil), c.Attempts...)
		out[i] = c
	}
	return out
}

// Attempts returns every attempt recorded so far, over all calls, in
// order: for a context that made one call, that call's attempts.
func (r *CallRecord) Attempts() []transport.Attempt {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []transport.Attempt
	for _, c := range r.calls {
		out = append(out, c.Attempts...)
	}
	return out
}

// recordKey keys, in a call's context, the attempts r keeps for that
// call until it ends.
type recordKey struct{ r *CallRecord }

// recording is one call's attempts so far.
type recording struct {
	mu       sync.Mutex
	attempts []transport.Attempt
}

// CallStarted returns ctx carrying where the call's attempts are kept.
func (r *CallRecord) CallStarted(ctx context.Context, _ transport.CallInfo) context.Context {
	return context.WithValue(ctx, recordKey{r}, &recording{})
}

// AttemptStarted returns ctx.
func (r *CallRecord) AttemptStarted(ctx context.Context, _ transport.CallInfo, _ transport.Attempt) context.Context {
	return ctx
}

// AttemptEnded keeps a for its call.
func (r *CallRecord) AttemptEnded(ctx context.Context, _ transport.CallInfo, a transport.Attempt) {
	if rec, _ := ctx.Value(recordKey{r}).(*recording); rec != nil {
		rec.mu.Lock()
		rec.attempts = append(rec.attempts, a)
		rec.mu.Unlock()
	}
}

// CallEnded records the call with its attempts.
func (r *CallRecord) CallEnded(ctx context.Context, call transport.CallInfo, res transport.CallResult) {
	c := RecordedCall{Method: call.Method, Err: res.Err, Duration: res.Duration}
	if rec, _ := ctx.Value(recordKey{r}).(*recording); rec != nil {
		rec.mu.Lock()
		c.Attempts = rec.attempts
		rec.mu.Unlock()
		// By number: a hedged pair's attempts end in either order.
		slices.SortStableFunc(c.Attempts, func(a, b transport.Attempt) int { return cmp.Compare(a.Number, b.Number) })
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
}
