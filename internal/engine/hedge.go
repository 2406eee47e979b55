package engine

import (
	"context"
	"reflect"
	"slices"
	"sync"

	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/retry"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// hedged runs first's attempt and, when it has no answer after
// Settings.HedgeAfter (hedgeDelay), a hedge: the same request on another
// endpoint, if the retry budget pays for it (retry.Call.Hedge) and one
// can be admitted at once (admission.Pool.TryAcquireElsewhere). It returns the attempt that
// decides the call (main) and, when a hedge ran, the other one (side),
// both finished: no goroutine it started outlives it.
//
// The first attempt runs on the caller's goroutine; the hedge delay is a
// timer on the pool's clock whose function starts the hedge (hedgeStart).
// An attempt answered before the delay, nearly every one, so costs no
// goroutine and no hand-off (plans/015-call-cost.md, "Second pass").
//
// The first outcome that settles the call wins (retrypolicy.Outcome.Settles:
// a success, or an answer any endpoint would repeat); the other attempt is canceled and waited for. When both
// fail on endpoint faults, the one that failed last is main. The hedge
// decodes into a fresh value of out's type, copied into out only once both
// attempts are done, so out never holds anything but the winner's answer
// and is never written by two goroutines.
//
// The hedge, if any, is the call's attempt number hn.
func (c *Engine) hedged(ctx context.Context, cs *callState, first attemptRun, req admission.Request, call *retry.Call, hn int) (main attemptRun, side *attemptRun) {
	x, out, ok := hedgeable(cs)
	if !ok { // a callback or a batch, or an out nothing can decode into
		first.o, first.end = c.attempt(first.ctx, cs, first.pm)
		return first, nil
	}
	h := &hedgeStart{c: c, ctx: ctx, cs: cs, x: x, out: out, first: first, req: req, call: call, hn: hn}
	h.wg.Add(1)
	timer := c.clock.AfterFunc(c.hedgeDelay(first.pm), h.start)
	first.o, first.end = c.attemptCancelable(first.ctx, cs, first.pm, &h.fcancel)
	if timer.Stop() { // no hedge started, nor will
		return first, nil
	}
	h.wg.Wait() // the timer fired: its function decides whether a hedge runs
	if h.hcancel == nil {
		return first, nil
	}
	defer h.hcancel()
	h.results <- first
	return c.settlePair(ctx, x, h)
}

// hedgeStart is what the hedge timer of a hedged pair needs to start the
// hedge (start), and what it started: results receives both attempts in
// the order they ended (the hedge's from its goroutine, the first's from
// the caller once it ended), and hcancel cancels the hedge (nil: none
// started). wg is done once start has decided; its fields are written
// only before that.
type hedgeStart struct {
	c     *Engine
	ctx   context.Context
	cs    *callState
	x     *intoExchange
	out   reflect.Value
	first attemptRun
	req   admission.Request
	call  *retry.Call
	hn    int
	// fcancel cancels the first attempt (a hedge that settled the call).
	fcancel firstCancel

	wg      sync.WaitGroup
	results chan attemptRun
	fresh   reflect.Value
	hcancel context.CancelFunc
}

// start is the hedge timer's function: it starts the hedge, if the budget
// pays and another endpoint admits it at once (startHedge).
func (h *hedgeStart) start() {
	defer h.wg.Done()
	h.results = make(chan attemptRun, 2)
	h.fresh, h.hcancel = h.c.startHedge(h.ctx, h.cs, h.x, h.out, h.first, h.req, h.call, h.hn, h.results, &h.fcancel)
}

// settlePair takes both attempts of a hedged pair from h.results, in the
// order they ended, and returns the one that decides the call and the
// other: the first to settle the call wins (the other was canceled when
// it did), else the one that failed last. A hedge that wins has its
// answer copied into the call's out.
func (c *Engine) settlePair(ctx context.Context, x *intoExchange, h *hedgeStart) (main attemptRun, side *attemptRun) {
	a := <-h.results
	if !retry.Settles(a.o.Outcome) {
		b := <-h.results
		main, side = b, &a
	} else {
		if a.hedge {
			h.fcancel.cancel()
		} else {
			h.hcancel()
		}
		b := <-h.results
		b.superseded = b.o.Cause == retrypolicy.Canceled && ctx.Err() == nil
		main, side = a, &b
	}
	if main.hedge && !main.o.Failed() && x.out != nil {
		h.out.Elem().Set(h.fresh.Elem())
	}
	return main, side
}

// hedgeable returns cs's exchange and its out when a hedge can decode
// into a fresh value of out's type: a single call whose out is nil or a
// non-nil pointer.
func hedgeable(cs *callState) (*intoExchange, reflect.Value, bool) {
	x, ok := cs.x.(*intoExchange)
	var out reflect.Value
	if ok && x.out != nil {
		out = reflect.ValueOf(x.out)
		ok = out.Kind() == reflect.Pointer && !out.IsNil()
	}
	return x, out, ok
}

// runHedge runs the hedge r of cs under ctx and sends it, finished, to
// results; when it settles the call it cancels the first attempt
// (fcancel) at once, which the caller, still in that attempt, cannot do.
func (c *Engine) runHedge(ctx context.Context, cs *callState, r attemptRun, results chan<- attemptRun, fcancel *firstCancel) {
	r.o, r.end = c.attempt(ctx, cs, r.pm)
	if retry.Settles(r.o.Outcome) {
		fcancel.cancel()
	}
	results <- r
}

// startHedge starts the hedge of first, attempt hn of the call, when the
// retry budget pays for it (call.Hedge) and another endpoint than first's,
// and than those the call avoids, admits it at once
// (admission.Pool.TryAcquireElsewhere, which never falls back to them):
// the budget is asked first, and given its place back (call.Unhedge) when
// no permit follows, so that a hedge that is not sent spends no
// endpoint's token or admission, nor a place in the budget. Its result
// goes to results, decoded into fresh (a new value of out's type, when
// out is set), and it cancels the first attempt (fcancel) when it
// settles the call. cancel cancels it; nil when no hedge started.
func (c *Engine) startHedge(ctx context.Context, cs *callState, x *intoExchange, out reflect.Value, first attemptRun,
	req admission.Request, call *retry.Call, hn int, results chan<- attemptRun, fcancel *firstCancel) (fresh reflect.Value, cancel context.CancelFunc) {
	if !call.Hedge(cs.class) {
		return reflect.Value{}, nil
	}
	hreq := req
	hreq.Avoid = append(slices.Clip(req.Avoid), first.pm.Endpoint())
	hpm := c.pool.TryAcquireElsewhere(hreq)
	if hpm == nil {
		call.Unhedge()
		return reflect.Value{}, nil
	}
	hx := &intoExchange{id: x.id, slots: x.slots}
	if x.out != nil {
		fresh = reflect.New(out.Type().Elem())
		hx.out = fresh.Interface()
	}
	hcs := *cs
	hcs.x = hx
	hcs.cuttable = c.cuttable(&hcs, hreq, hpm.Endpoint(), call)
	hrun := attemptRun{pm: hpm, ctx: ctx, start: c.clock.Now(), hedge: true}
	c.attemptStarted(cs, &hrun, hn)
	hctx, hcancel := context.WithCancel(hrun.ctx)
	go c.runHedge(hctx, &hcs, hrun, results, fcancel)
	return fresh, hcancel
}

// settleSide reports the side attempt of a hedged pair to its permit. An
// original overtaken by its hedge at a fixed HedgeAfter is held against
// its endpoint, as a timeout would be (and puts it in doubt when a server
// may have acted): it had the request for HedgeAfter, the caller's line
// between slow and failing, and said nothing while another endpoint
// answered, so five in a row eject a blackhole in five hedge delays, not
// five attempt timeouts. Overtaken at HedgeAuto's delay, a p95 that one
// answer in twenty passes by construction, it is slow rather than
// failing (admission.Permit.Overtaken: a failure towards ejection, no penalty,
// no doubt). A hedge canceled because the original answered is nobody's
// fault: it started later, losing says nothing.
func (c *Engine) settleSide(side *attemptRun) {
	switch {
	case side.superseded && side.hedge:
		side.o.Fault = retrypolicy.LocalFault
	case side.superseded:
		side.o.Fault = retrypolicy.EndpointFault
		if c.hedgeAfter == transport.HedgeAuto {
			side.pm.Overtaken()
			return
		}
	}
	side.pm.Done(side.o.Outcome)
}

// firstCancel is how a hedge cancels the first attempt of its pair, which
// runs on the caller's goroutine: that attempt hands over its timer once
// armed (set) and the hedge cancels it (cancel), in either order. It
// stands in for a cancel context of its own above the attempt's (three
// allocations and a registration per hedgeable read, plans/015-call-cost.md,
// "Fourth pass"): the attempt's own context is canceled, with
// errSuperseded, which classifyErr reads as Canceled.
type firstCancel struct {
	mu       sync.Mutex
	at       *attemptTimer
	canceled bool
}

// set hands over the first attempt's timer, canceling it at once when the
// hedge already asked.
func (f *firstCancel) set(at *attemptTimer) {
	f.mu.Lock()
	f.at = at
	canceled := f.canceled
	f.mu.Unlock()
	if canceled {
		at.supersede()
	}
}

// cancel cancels the first attempt, now or as soon as it is armed.
func (f *firstCancel) cancel() {
	f.mu.Lock()
	f.canceled = true
	at := f.at
	f.mu.Unlock()
	if at != nil {
		at.supersede()
	}
}
