package engine

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// observers is an Engine's Observers: read with one atomic load per call,
// written copy-on-write under mu.
type observers struct {
	mu   sync.Mutex
	list atomic.Pointer[[]transport.Observer]
}

// load returns the Observers added so far; nil when none.
func (o *observers) load() []transport.Observer {
	if p := o.list.Load(); p != nil {
		return *p
	}
	return nil
}

// add appends ob.
func (o *observers) add(ob transport.Observer) {
	o.mu.Lock()
	defer o.mu.Unlock()
	next := append(append([]transport.Observer(nil), o.load()...), ob)
	o.list.Store(&next)
}

// Observe adds o to the Observers of every call that starts from now on
// (a call under way keeps those it started with). Observers are never
// removed; adding the same one twice makes it see everything twice. A nil
// o is ignored.
func (c *Engine) Observe(o transport.Observer) {
	if o != nil {
		c.observers.add(o)
	}
}

// callRecordKey is the context key of WithCallRecord.
type callRecordKey struct{}

// CallRecord collects, for a caller who asks through the context
// (WithCallRecord), every call made under that context with its attempts.
// Its zero value is ready; it is safe for concurrent use.
type CallRecord struct {
	mu    sync.Mutex
	calls []RecordedCall
}

// RecordedCall is one call of a CallRecord.
type RecordedCall struct {
	// Method is the JSON-RPC method; "batch" for CallBatch.
	Method string
	// Attempts lists every attempt in order, the successful one included:
	// endpoint, duration, admission wait, dispatch state, cause, decision.
	Attempts []transport.Attempt
	// Err is nil on success, the call's *CallError otherwise.
	Err error
	// Duration is the call's time on the pool's clock.
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

// add records one finished call.
func (r *CallRecord) add(c RecordedCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
}

// WithCallRecord returns a context whose calls are recorded in r when
// they end: which endpoints one call tried, for how long, and why each
// attempt stopped. It works on every entry point (solana-go's client, the
// typed calls, batches, callbacks).
func WithCallRecord(ctx context.Context, r *CallRecord) context.Context {
	return context.WithValue(ctx, callRecordKey{}, r)
}

// RetryBudget returns the client's retry budget now (see
// retrypolicy.Usage): calls and counted retries under way, tokens left.
func (c *Engine) RetryBudget() retrypolicy.Usage { return c.policy.Usage() }
