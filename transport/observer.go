package transport

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/retrypolicy"
)

// An Observer sees every call a Client makes and every attempt of it, as
// they happen: metrics and traces plug in here (see Client.Observe). Its
// methods run on the goroutine that made the call (a hedge's request runs
// on a goroutine of its own, its AttemptStarted does not); they must be
// safe for concurrent use, must not block, and must not keep the values
// they are given past their return. Nothing they are given holds a URL or
// a header value.
//
// A call sees CallStarted once, then for each attempt AttemptStarted and
// AttemptEnded (the attempts of a hedged pair overlap), then CallEnded. A
// call the pool admits nowhere has no attempt. A call refused before it
// starts (params that do not encode, a nil callback, an empty batch) is
// not observed: it returns its *CallError at once and reaches no pool. The contexts an Observer
// returns must derive from the context it was given; they are threaded
// through every Observer of the client in the order they were added, and
// each method receives the last one.
type Observer interface {
	// CallStarted is called before the call asks the pool for an
	// endpoint, with the caller's context. The context it returns is the
	// call's from then on: its waits and attempts run under it, and
	// OnAttempt and the Observer's other methods for the call receive it.
	CallStarted(ctx context.Context, call CallInfo) context.Context
	// AttemptStarted is called once the pool admitted an attempt, before
	// its request is written, with the call's context. The context it
	// returns is the attempt's: the request runs under it and
	// AttemptEnded receives it.
	AttemptStarted(ctx context.Context, call CallInfo, a AttemptStart) context.Context
	// AttemptEnded is called once the attempt's decision is known, with
	// AttemptStarted's context.
	AttemptEnded(ctx context.Context, call CallInfo, a Attempt)
	// CallEnded is called when the call returns, with the call's context.
	CallEnded(ctx context.Context, call CallInfo, r CallResult)
}

// CallInfo describes a call to an Observer.
type CallInfo struct {
	// Method is the JSON-RPC method; "batch" for CallBatch.
	Method string
	// Known is set when the client's registry knows Method (built in or
	// declared), and for a batch. Any string can reach a Client as a
	// method name: an Observer that labels by method should collapse the
	// unknown ones into one value.
	Known bool
	// Role is the role the call needs.
	Role endpoint.Role
	// Class is how the call may be retried: a batch has its strictest
	// member's class.
	Class retrypolicy.Class
	// Batch is the number of requests of a batch; 0 for a single call.
	Batch int
	// Start is when the call began, on the pool's clock.
	Start time.Time
}

// OtherMethod is what MethodLabel names a method the registry does not
// know by: the one value metrics and span names collapse unknown methods
// into, so that any number of them stays one label.
const OtherMethod = "other"

// MethodLabel is the call's method as a label: Method when the registry
// knows it, OtherMethod otherwise.
func (c CallInfo) MethodLabel() string {
	if c.Known {
		return c.Method
	}
	return OtherMethod
}

// AttemptStart describes an attempt the pool admitted.
type AttemptStart struct {
	// Endpoint is the endpoint's Name; Tier its tier.
	Endpoint string
	Tier     int
	// Number counts the call's attempts from 1, hedges included.
	Number int
	// Hedge is set for an attempt sent as a hedge while another ran.
	Hedge bool
	// Wait is how long the pool took to admit the attempt.
	Wait time.Duration
}

// CallResult is how a call ended.
type CallResult struct {
	// Err is nil on success, a *CallError otherwise.
	Err error
	// Cause is the *CallError's Cause; 0 on success.
	Cause retrypolicy.Cause
	// Attempts is how many attempts the call made, hedges included.
	Attempts int
	// Duration is the call's time on the pool's clock.
	Duration time.Duration
	// Ambiguous is set when an attempt may have reached a server and the
	// call was not resent (errors.Is(Err, ErrAmbiguousDispatch)).
	Ambiguous bool
}

// observers is a Client's Observers: read with one atomic load per call,
// written copy-on-write under mu.
type observers struct {
	mu   sync.Mutex
	list atomic.Pointer[[]Observer]
}

// load returns the Observers added so far; nil when none.
func (o *observers) load() []Observer {
	if p := o.list.Load(); p != nil {
		return *p
	}
	return nil
}

// add appends ob.
func (o *observers) add(ob Observer) {
	o.mu.Lock()
	defer o.mu.Unlock()
	next := append(append([]Observer(nil), o.load()...), ob)
	o.list.Store(&next)
}

// Observe adds o to the Observers of every call that starts from now on
// (a call under way keeps those it started with). Observers are never
// removed; adding the same one twice makes it see everything twice. A nil
// o is ignored.
func (c *Client) Observe(o Observer) {
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
	Attempts []Attempt
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
		c.Attempts = append([]Attempt(nil), c.Attempts...)
		out[i] = c
	}
	return out
}

// Attempts returns every attempt recorded so far, over all calls, in
// order: for a context that made one call, that call's attempts.
func (r *CallRecord) Attempts() []Attempt {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Attempt
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
func (c *Client) RetryBudget() retrypolicy.Usage { return c.policy.Usage() }
