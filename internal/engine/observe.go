package engine

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

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

// observerKey is the context key of WithObserver.
type observerKey struct{}

// WithObserver returns a context whose calls are also observed by o, after
// the engine's own Observers (and after those an outer WithObserver
// added): solroute.WithObserver, and how the resolver learns which
// endpoint answered one of its calls. A nil o is ignored.
func WithObserver(ctx context.Context, o transport.Observer) context.Context {
	if o == nil {
		return ctx
	}
	outer, _ := ctx.Value(observerKey{}).([]transport.Observer)
	return context.WithValue(ctx, observerKey{}, append(slices.Clip(outer), o))
}

// observersFor returns the Observers of a call under ctx: the engine's,
// then the context's; nil when none.
func (c *Engine) observersFor(ctx context.Context) []transport.Observer {
	own := c.observers.load()
	extra, _ := ctx.Value(observerKey{}).([]transport.Observer)
	if len(extra) == 0 {
		return own
	}
	return append(slices.Clip(own), extra...)
}

// attemptStarted numbers run as the call's attempt n, counts it, and tells
// the call's Observers it started: run.ctx becomes the attempt's context.
func (c *Engine) attemptStarted(cs *callState, run *attemptRun, n int) {
	run.number = n
	cs.attempts++
	if cs.obs == nil {
		return
	}
	s := transport.Attempt{Endpoint: run.pm.Endpoint(), Tier: run.pm.Tier(), Number: n, Hedge: run.hedge, Wait: run.wait,
		InDoubt: run.pm.InDoubt()}
	for _, o := range cs.obs {
		run.ctx = o.AttemptStarted(run.ctx, cs.info, s)
	}
}

// notify reports attempt a (of run) to the call's Observers.
func (c *Engine) notify(cs *callState, run *attemptRun, a *transport.Attempt) {
	for _, o := range cs.obs {
		o.AttemptEnded(run.ctx, cs.info, *a)
	}
}

// attemptOf is the report of a finished attempt, without its decision.
func (c *Engine) attemptOf(r *attemptRun) transport.Attempt {
	return transport.Attempt{
		Endpoint: r.pm.Endpoint(),
		Tier:     r.pm.Tier(),
		Number:   r.number,
		Outcome:  r.o.Outcome,
		Duration: r.end.Sub(r.start),
		Wait:     r.wait,
		Timeout:  r.o.timeout,
		Hedge:    r.hedge,
		InDoubt:  r.pm.InDoubt(),
		Err:      r.o.err,
	}
}

// AttemptFunc is an Observer that sees only each attempt's end, with the
// call's method: the resolver's, and the tests'.
type AttemptFunc func(ctx context.Context, method string, a transport.Attempt)

// CallStarted returns ctx.
func (f AttemptFunc) CallStarted(ctx context.Context, _ transport.CallInfo) context.Context {
	return ctx
}

// AttemptStarted returns ctx.
func (f AttemptFunc) AttemptStarted(ctx context.Context, _ transport.CallInfo, _ transport.Attempt) context.Context {
	return ctx
}

// AttemptEnded calls f.
func (f AttemptFunc) AttemptEnded(ctx context.Context, call transport.CallInfo, a transport.Attempt) {
	f(ctx, call.Method, a)
}

// CallEnded does nothing.
func (f AttemptFunc) CallEnded(context.Context, transport.CallInfo, transport.CallResult) {}

// RetryBudget returns the client's retry budget now (see
// retrypolicy.Usage): calls and counted retries under way, tokens left.
func (c *Engine) RetryBudget() retrypolicy.Usage { return c.policy.Usage() }

// ResponseBudget returns the response byte budget now: bytes held, limit,
// answers refused.
func (c *Engine) ResponseBudget() transport.ResponseBudget { return c.budget.usage() }
