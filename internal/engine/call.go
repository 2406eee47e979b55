package engine

import (
	"context"
	"slices"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/retry"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// do runs one call, observed: CallStarted, the loop, CallEnded, for the
// engine's Observers and the context's (observe.go). A call nobody
// observes pays for none of it.
func (c *Engine) do(ctx context.Context, cs *callState, role endpoint.Role) error {
	cs.obs = c.observersFor(ctx)
	if cs.obs == nil {
		return c.loop(ctx, cs, role)
	}
	start, joined := ctx.Value(joinedKey{}).(time.Time) // a coalesced caller's, asking after its wait
	if !joined {
		start = c.clock.Now()
	}
	cs.info = transport.CallInfo{Method: cs.method, Known: cs.known, Role: role, Class: cs.class, Batch: cs.batch, Start: start}
	for _, o := range cs.obs {
		ctx = o.CallStarted(ctx, cs.info)
	}
	err := c.loop(ctx, cs, role)
	r := transport.CallResult{Err: err, Attempts: cs.attempts, Duration: c.clock.Now().Sub(cs.info.Start)}
	if ce, ok := err.(*transport.CallError); ok {
		r.Cause, r.Ambiguous = ce.Cause, ce.Ambiguous
	}
	for _, o := range cs.obs {
		o.CallEnded(ctx, cs.info, r)
	}
	return err
}

// loop is the call itself: one shared deadline, then acquire -> attempt
// -> report the outcome to the permit -> decide -> wait, until success or
// a stop. Each step is a method of callLoop that decides one thing.
//
// The deadline is computed once, on the pool's clock: now + the call's
// budget (the method's own, methods.Method.Timeout, else the pool's
// default timeout), cut to ctx's deadline when that is sooner. It bounds
// every Acquire (passed as Request.Deadline), every attempt (each gets
// min(attemptTimeout, time left), cut early only when that can buy
// another attempt) and every backoff. A call that stops for time returns
// the context's error when it is the caller's deadline (endedBy). Each
// decision is told whether an endpoint this call has not failed on can
// take the retry (retry.Input.ElsewhereAvailable): such a failover waits
// no delay. Whether to resend is the retry policy's alone (retry.Decide);
// the loop only carries out its decision, and the call's error says when
// an attempt left it ambiguous (retry.Input.Ambiguous).
func (c *Engine) loop(ctx context.Context, cs *callState, role endpoint.Role) error {
	l, err := c.newLoop(ctx, cs, role)
	if err != nil {
		return err
	}
	defer l.retries.End()
	for n := 1; ; n++ {
		run, err := l.acquire(ctx, n)
		if err != nil {
			return l.failures.acquireFailed(ctx, err)
		}
		n = l.attempt(ctx, &run, n)
		if l.report(&run) {
			return nil
		}
		d := l.decide(&run, n)
		if !d.Retry {
			return l.failures.err(cs.endedBy(ctx, &run.o, d)...)
		}
		if err := l.wait(ctx, d.Delay); err != nil {
			return err
		}
	}
}

// callLoop is one call's loop: its request to the pool, its retry state
// and its failure log.
type callLoop struct {
	c        *Engine
	cs       *callState
	req      admission.Request
	retries  *retry.Call
	failures failures
	// hedging: the call's reads are hedged (Settings.HedgeAfter).
	hedging bool
	// once: the call makes no counted retry (WithEndpointOnce).
	once bool
	// call is what retries points at (retry.Policy.Start).
	call retry.Call
}

// intoCall is everything a CallForInto call holds, in one allocation.
type intoCall struct {
	cs   callState
	x    intoExchange
	loop callLoop
}

// newLoop sets the call's deadline and attempt bounds and builds its
// request to the pool; the error is the call's when no endpoint serves it.
func (c *Engine) newLoop(ctx context.Context, cs *callState, role endpoint.Role) (*callLoop, error) {
	caps := capabilitiesFrom(ctx)
	only, once := endpointFrom(ctx)
	timeout, err := c.pool.DefaultTimeout(admission.Request{Role: role, Method: cs.method, Capabilities: caps, Endpoint: only})
	if err != nil {
		return nil, &transport.CallError{Method: cs.method, Errs: []error{err}}
	}
	now := cs.info.Start // an observed call's start: CallEnded's Duration and the deadline share it
	if cs.obs == nil {
		now = c.clock.Now()
	}
	cs.setDeadline(ctx, now, timeout)
	cs.attemptMax = c.attemptTO
	if cs.attemptMax == 0 {
		cs.attemptMax = cs.deadline.Sub(now) / 2
	}
	read := cs.class == retrypolicy.Idempotent
	// A read of one method decoded into a value (not a batch, whose
	// latency depends on its size, nor a callback, whose attempt runs
	// the caller's code) is timed: its answers feed its endpoint's latency
	// for the method, which bounds its attempts (unless AttemptTimeout is
	// set) and delays its hedge at HedgeAuto.
	_, single := cs.x.(*intoExchange)
	timed := read && single
	cs.adaptive = timed && c.attemptTO == 0
	avoid, _ := ctx.Value(avoidKey{}).([]string)
	l := cs.loop
	if l == nil {
		l = new(callLoop)
	}
	*l = callLoop{c: c, cs: cs, hedging: read && c.hedgeAfter != 0, once: once, failures: failures{method: cs.method},
		req: admission.Request{Role: role, Method: cs.method, Capabilities: caps, Deadline: cs.deadline,
			AvoidDoubt: !read, Timed: cs.adaptive || timed && c.hedgeAfter == transport.HedgeAuto,
			Avoid: slices.Clip(avoid), Endpoint: only}}
	l.req.Slot = cs.slots.Need() // an endpoint known to be below the floor would only refuse
	l.req.History = cs.history   // history endpoints first, avoided ones last
	c.policy.Start(&l.call)
	l.retries = &l.call
	return l, nil
}

// acquire waits for a permit and starts attempt n on it: numbered,
// counted, its wait measured and its Observers told.
func (l *callLoop) acquire(ctx context.Context, n int) (attemptRun, error) {
	c, cs := l.c, l.cs
	asked := c.clock.Now()
	if cs.class == retrypolicy.Idempotent {
		l.req.Proven, l.req.Retry = l.lastChance(n, asked), n > 1
	}
	pm, err := c.pool.Acquire(ctx, l.req)
	if err != nil {
		return attemptRun{}, err
	}
	cs.retries = l.retries.Retries().Counted
	cs.cuttable = c.cuttable(cs, l.req, pm.Endpoint(), l.retries)
	run := attemptRun{pm: pm, ctx: ctx, start: c.clock.Now()}
	run.wait = run.start.Sub(asked)
	c.attemptStarted(cs, &run, n)
	return run, nil
}

// lastChance reports whether a read's retry, attempt n asked for at
// now, is likely its call's last, so that it goes first to an endpoint
// that answered since it last failed (admission.Request.Proven; plans/008,
// "The last chance"): retry.Call.CanRetry refuses another (MaxRetries
// used, or the retry budget spent), or less time is left than the
// shortest bound a cut of it could have (the fixed rule's, AdaptiveFloor
// for an adaptive read; where that rule falls back to the fixed one, with
// no latency to go by or while suspended, the time is read as the
// adaptive rule would: the preference only orders). A first attempt is
// never one: first attempts are what probes an endpoint that failed.
func (l *callLoop) lastChance(n int, now time.Time) bool {
	if n == 1 {
		return false
	}
	if !l.retries.CanRetry() {
		return true
	}
	shortest := l.cs.attemptMax
	if l.cs.adaptive {
		shortest = AdaptiveFloor
	}
	return l.cs.deadline.Sub(now) <= shortest
}

// attempt runs the attempt of run, or a hedged pair (hedge.go): the side
// attempt that did not decide the call is reported here, superseded. It
// returns the number of the call's latest attempt.
func (l *callLoop) attempt(ctx context.Context, run *attemptRun, n int) int {
	defer releaseOnPanic(run)
	c, cs := l.c, l.cs
	// A call that has had its hedge (retry.Call.Hedged) would only take
	// another endpoint's permit, and a token, to give it back.
	if !l.hedging || l.retries.Hedged() {
		run.o, run.end = c.attempt(run.ctx, cs, run.pm)
		return n
	}
	var side *attemptRun
	// (hedged sets run.end itself, for both attempts it ran)
	if *run, side = c.hedged(ctx, cs, *run, l.req, l.retries, n+1); side == nil {
		return n
	}
	c.settleSide(side)
	sa := c.attemptOf(side)
	sa.Decision = retry.Stop(retrypolicy.RuleSuperseded)
	l.failures.add(sa)
	c.notify(cs, side, &sa)
	if !side.superseded { // it failed on its own: no retry there
		l.req.Avoid = append(l.req.Avoid, side.pm.Endpoint())
	}
	return n + 1
}

// releaseOnPanic gives run's permit back, without an outcome, when the
// caller's own code panics during the attempt (a callback, an
// UnmarshalJSON: not the endpoint's doing), and panics on: the permit's
// concurrency slot would otherwise be held for good.
func releaseOnPanic(run *attemptRun) {
	if p := recover(); p != nil {
		run.pm.Release()
		panic(p)
	}
}

// report gives the attempt's outcome to its permit (health, cooldown,
// doubt), and reports whether it succeeded: its answer's slot then raises
// the call's session, and its Observers are told.
func (l *callLoop) report(run *attemptRun) bool {
	c, cs, o := l.c, l.cs, &run.o
	if o.throttled {
		run.pm.Throttled(o.throttleDelay)
	}
	run.pm.Done(o.Outcome)
	if o.Failed() {
		return false
	}
	if cs.slots != nil && o.slot > 0 {
		cs.slots.Raise(o.slot)
	}
	a := c.attemptOf(run)
	c.notify(cs, run, &a)
	return true
}

// decide asks the retry policy what follows the failed attempt n of run,
// records the attempt with its decision and tells its Observers.
func (l *callLoop) decide(run *attemptRun, n int) retrypolicy.Decision {
	c, cs, o := l.c, l.cs, &run.o
	// Can the retry fail over to an endpoint this call has not failed
	// on? Then it waits neither a backoff nor the provider's delay
	// (which binds the endpoint that sent it, now cooling down).
	// (tried may share Avoid's spare capacity: Avoid's own elements
	// are untouched, and it becomes tried only on a failover.)
	tried := append(l.req.Avoid, run.pm.Endpoint())
	slotElsewhere, slotNearest := c.slotElsewhere(o, l.req, tried)
	in := retry.Input{
		Number:             n,
		Outcome:            o.Outcome,
		Class:              cs.class,
		ElsewhereAvailable: l.req.Endpoint == "" && c.pool.HasAlternative(l.req, tried), // a pinned call has no elsewhere
		SlotElsewhere:      slotElsewhere,
		SlotNearest:        slotNearest,
		TimeLeft:           cs.deadline.Sub(c.clock.Now()),
		Busy:               o.isBusy,
		Once:               l.once,
	}
	d := l.retries.Next(in)
	l.failures.ambiguous = l.failures.ambiguous || in.Ambiguous()
	a := c.attemptOf(run)
	a.Decision = d
	l.failures.add(a)
	c.notify(cs, run, &a)
	// A not-yet retry keeps the refuser only where the slot book holds
	// its refusal (plans/009, "The refuser is not avoided"): an at-once
	// retry avoids a refuser the book does not show short (a getSlot,
	// judged by its slot answers, which a -32016 does not lower).
	if d.OtherEndpoint || d.NotYet && d.Delay == 0 && !c.book.Short(run.pm.Marks(), c.clock.Now(), l.req.Slot) {
		l.req.Avoid = tried
	}
	return d
}

// wait waits the decided delay on the pool's clock; the error is the
// call's when ctx ends first.
func (l *callLoop) wait(ctx context.Context, delay time.Duration) error {
	if delay <= 0 {
		return nil
	}
	t := l.c.clock.NewTimer(delay)
	select {
	case <-t.Chan():
		return nil
	case <-ctx.Done():
		t.Stop()
		return l.failures.err(contextErrs(ctx)...)
	}
}

// setDeadline sets the call's one deadline, at now: now + its budget
// (budget, for endpoints whose default timeout is def), or ctx's deadline
// when that is not later (ctxDeadline).
func (cs *callState) setDeadline(ctx context.Context, now time.Time, def time.Duration) {
	cs.deadline = now.Add(cs.budget(def))
	if d, ok := ctx.Deadline(); ok && !d.After(cs.deadline) {
		cs.deadline, cs.ctxDeadline = d, true
	}
}
