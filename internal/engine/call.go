package engine

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/retry"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// do runs the call loop: one shared deadline, then acquire -> attempt ->
// report the outcome to the permit -> decide -> wait, until success or a
// stop.
//
// The deadline is computed once, on the pool's clock: now + the call's
// budget (the method's own, methods.Method.Timeout, else
// admission.DefaultTimeout), cut to ctx's deadline when that is sooner. It
// bounds every Acquire (passed as Request.Deadline), every attempt (each
// gets min(attemptTimeout, time left), cut early only when that can buy
// another attempt) and every backoff. A call that stops for time returns
// the context's error when it is the caller's deadline (endedBy). Each decision is
// told whether an endpoint this call has not failed on can take the retry
// (retry.Input.ElsewhereAvailable): such a failover waits no delay.
// Whether to resend is the retry policy's alone (retry.Decide); the
// loop only carries out its decision, and the call's error says when an
// attempt left it ambiguous (retry.Input.Ambiguous).
func (c *Engine) do(ctx context.Context, cs *callState, role endpoint.Role) error {
	cs.obs = c.observers.load()
	cs.rec, _ = ctx.Value(callRecordKey{}).(*CallRecord)
	if cs.obs == nil && cs.rec == nil {
		return c.loop(ctx, cs, role)
	}
	cs.info = transport.CallInfo{Method: cs.method, Known: cs.known, Role: role, Class: cs.class, Batch: cs.batch, Start: c.clock.Now()}
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
	if cs.rec != nil {
		cs.rec.add(RecordedCall{Method: cs.method, Attempts: cs.recorded, Err: err, Duration: r.Duration})
	}
	return err
}

// loop is do without its observers: the call itself.
func (c *Engine) loop(ctx context.Context, cs *callState, role endpoint.Role) error {
	caps, only := capabilitiesFrom(ctx), endpointFrom(ctx)
	timeout, err := c.pool.DefaultTimeout(admission.Request{Role: role, Method: cs.method, Capabilities: caps, Endpoint: only})
	if err != nil {
		return &transport.CallError{Method: cs.method, Errs: []error{err}}
	}
	now := c.clock.Now()
	cs.setDeadline(ctx, now, timeout)
	cs.attemptMax = c.attemptTO
	if cs.attemptMax == 0 {
		cs.attemptMax = cs.deadline.Sub(now) / 2
	}
	read := cs.class == retrypolicy.Idempotent
	hedging := read && c.hedgeAfter != 0
	// A read of one method decoded into a value (not a batch, whose
	// latency depends on its size, nor a callback, whose attempt runs
	// the caller's code) is timed: its answers feed its endpoint's latency
	// for the method, which bounds its attempts (unless AttemptTimeout is
	// set) and delays its hedge at HedgeAuto.
	_, single := cs.x.(*intoExchange)
	timed := read && single
	cs.adaptive = timed && c.attemptTO == 0
	call := c.policy.Begin()
	defer call.End()

	rec := callRecord{method: cs.method}
	avoid, _ := ctx.Value(avoidKey{}).([]string)
	req := admission.Request{Role: role, Method: cs.method, Capabilities: caps, Deadline: cs.deadline,
		AvoidDoubt: !read, Timed: cs.adaptive || timed && c.hedgeAfter == transport.HedgeAuto, Avoid: slices.Clip(avoid), Endpoint: only}
	req.Slot = cs.slots.Need() // an endpoint known to be below the floor would only refuse
	for n := 1; ; n++ {
		asked := c.clock.Now()
		pm, err := c.pool.Acquire(ctx, req)
		if err != nil {
			return rec.acquireFailed(ctx, err)
		}
		cs.retries = call.Retries().Counted
		cs.cuttable = c.cuttable(cs, req, pm.Endpoint())
		run := attemptRun{pm: pm, ctx: ctx, start: c.clock.Now()}
		run.wait = run.start.Sub(asked)
		c.attemptStarted(cs, &run, n)
		// A call that has had its hedge (retry.Call.Hedged) would
		// only take another endpoint's permit, and a token, to give it back.
		if hedging && !call.Hedged() {
			var side *attemptRun
			// (hedged sets run.end itself, for both attempts it ran)
			if run, side = c.hedged(ctx, cs, run, req, call, n+1); side != nil {
				c.settleSide(side)
				sa := c.attemptOf(side)
				sa.Decision = retry.Stop(retrypolicy.RuleSuperseded)
				rec.add(sa, side.o.err)
				c.notify(ctx, cs, side, &sa, side.o.err)
				n++
				if !side.superseded { // it failed on its own: no retry there
					req.Avoid = append(req.Avoid, side.pm.Endpoint())
				}
			}
		} else {
			run.o = c.attempt(run.ctx, cs, pm)
			run.end = c.clock.Now()
		}
		pm, o := run.pm, run.o
		pm.Done(o.Outcome)
		a := c.attemptOf(&run)
		if !o.Failed() {
			if cs.slots != nil && o.slot > 0 {
				cs.slots.Raise(o.slot)
			}
			c.notify(ctx, cs, &run, &a, nil)
			return nil
		}
		// Can the retry fail over to an endpoint this call has not failed
		// on? Then it waits neither a backoff nor the provider's delay
		// (which binds the endpoint that sent it, now cooling down).
		// (tried may share Avoid's spare capacity: Avoid's own elements
		// are untouched, and it becomes tried only on a failover.)
		tried := append(req.Avoid, pm.Endpoint())
		ra := retry.Input{
			Number:             n,
			Outcome:            o.Outcome,
			Class:              cs.class,
			ElsewhereAvailable: only == "" && c.pool.HasAlternative(role, caps, tried), // a pinned call has no elsewhere
			SlotElsewhere:      c.slotElsewhere(&o, req, tried),
			TimeLeft:           cs.deadline.Sub(c.clock.Now()),
		}
		d := call.Next(ra)
		rec.ambiguous = rec.ambiguous || ra.Ambiguous()
		a.Decision = d
		rec.add(a, o.err)
		c.notify(ctx, cs, &run, &a, o.err)
		if !d.Retry {
			return rec.err(cs.endedBy(ctx, &o, d)...)
		}
		if d.OtherEndpoint {
			req.Avoid = tried
		}
		if d.Delay > 0 {
			t := c.clock.NewTimer(d.Delay)
			select {
			case <-t.Chan():
			case <-ctx.Done():
				t.Stop()
				return rec.err(contextErrs(ctx)...)
			}
		}
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

// endedBy is what the call's error adds when the call stops after the
// outcome o and the decision d because of time: the caller's context
// error when the context ended (and its cause, when that is another
// error); context.DeadlineExceeded when the call's deadline is the
// caller's and the call stopped at it (its last attempt ran until it, or
// no retry could start before it), although the context may not have
// noticed yet (the pool's clock fired first). A call stopped at its own
// budget (the endpoints' request_timeout, the method's timeout) adds
// nothing: its Cause says Timeout.
func (cs *callState) endedBy(ctx context.Context, o *outcome, d retrypolicy.Decision) []error {
	if ctx.Err() != nil {
		return contextErrs(ctx)
	}
	if cs.ctxDeadline && (o.atDeadline || d.Rule == retrypolicy.RuleDeadline) {
		return []error{context.DeadlineExceeded}
	}
	return nil
}

// contextErrs is the error of ctx, which ended, and its cause when that
// is another error (context.WithCancelCause).
func contextErrs(ctx context.Context) []error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return []error{err, cause}
	}
	return []error{err}
}

// callRecord is what a call's error will say: every attempt, the last
// failure, and whether an attempt left the call ambiguous.
type callRecord struct {
	method    string
	attempts  []transport.Attempt
	lastErr   error
	lastCause retrypolicy.Cause
	ambiguous bool
}

// add records attempt a, which ended with err (nil on success).
func (r *callRecord) add(a transport.Attempt, err error) {
	r.attempts = append(r.attempts, a)
	if a.Failed() && a.Decision.Rule != retrypolicy.RuleSuperseded {
		r.lastErr, r.lastCause = err, a.Cause
	}
}

// acquireFailed is the call's error when Acquire returned err: before any
// attempt its cause is Canceled (ctx ended) or Timeout (the pool admitted
// none before the deadline).
func (r *callRecord) acquireFailed(ctx context.Context, err error) error {
	if len(r.attempts) == 0 {
		switch {
		case ctx.Err() != nil:
			r.lastCause = retrypolicy.Canceled
		case errors.Is(err, admission.ErrDeadline):
			r.lastCause = retrypolicy.Timeout
		}
	}
	return r.err(err)
}

// err is the *CallError that ends the call, with extra after the last
// attempt's error.
func (r *callRecord) err(extra ...error) error {
	ce := &transport.CallError{Method: r.method, Cause: r.lastCause, Attempts: r.attempts}
	if r.lastErr != nil {
		ce.Errs = append(ce.Errs, r.lastErr)
	}
	ce.Errs = append(ce.Errs, extra...)
	if r.ambiguous {
		ce.Ambiguous, ce.Errs = true, append(ce.Errs, ErrAmbiguousDispatch)
	}
	return ce
}

// attemptStarted numbers run as the call's attempt n, counts it, and tells
// the call's Observers it started: run.ctx becomes the attempt's context.
func (c *Engine) attemptStarted(cs *callState, run *attemptRun, n int) {
	run.number = n
	cs.attempts++
	if cs.obs == nil {
		return
	}
	s := transport.AttemptStart{Endpoint: run.pm.Endpoint(), Tier: run.pm.Tier(), Number: n, Hedge: run.hedge, Wait: run.wait}
	for _, o := range cs.obs {
		run.ctx = o.AttemptStarted(run.ctx, cs.info, s)
	}
}

// notify reports attempt a (of run) to the Observers, OnAttempt, the
// context's observer, the call record and the logger (names only). ctx is
// the call's context.
func (c *Engine) notify(ctx context.Context, cs *callState, run *attemptRun, a *transport.Attempt, err error) {
	method := cs.method
	for _, o := range cs.obs {
		o.AttemptEnded(run.ctx, cs.info, *a)
	}
	if cs.rec != nil {
		cs.recorded = append(cs.recorded, *a)
	}
	if c.onAttempt != nil {
		c.onAttempt(ctx, method, *a)
	}
	if f, _ := ctx.Value(observerKey{}).(func(context.Context, string, transport.Attempt)); f != nil {
		f(ctx, method, *a)
	}
	if c.logger == nil {
		return
	}
	level := slog.LevelDebug
	if a.Cause != 0 {
		level = slog.LevelInfo
	}
	if !c.logger.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", method),
		slog.Int("attempt", run.number),
		slog.String("endpoint", a.Endpoint),
		slog.Int("tier", a.Tier),
		slog.String("cause", a.Cause.String()),
		slog.String("dispatch", a.Dispatch.String()),
		slog.Int("http_status", a.HTTPStatus),
		slog.Int("rpc_code", a.RPCCode),
		slog.Duration("duration", a.Duration),
	}
	if a.Cause != 0 {
		attrs = append(attrs,
			slog.String("decision", a.Decision.Rule.String()),
			slog.Duration("delay", a.Decision.Delay),
			slog.String("reason", a.Decision.Reason))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error())) // secret-free by construction
	}
	c.logger.LogAttrs(ctx, level, "transport: attempt", attrs...)
}

// attemptOf is the report of a finished attempt, without its decision.
func (c *Engine) attemptOf(r *attemptRun) transport.Attempt {
	return transport.Attempt{
		Endpoint: r.pm.Endpoint(),
		Tier:     r.pm.Tier(),
		Outcome:  r.o.Outcome,
		Duration: r.end.Sub(r.start),
		Wait:     r.wait,
		Timeout:  r.o.timeout,
		Hedge:    r.hedge,
		InDoubt:  r.pm.InDoubt(),
	}
}
