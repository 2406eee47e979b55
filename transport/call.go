package transport

import (
	"context"
	"errors"
	"log/slog"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
)

// do runs the call loop: one shared deadline, then acquire -> attempt ->
// record -> decide -> wait, until success or a stop.
//
// The deadline is computed once, on the pool's clock: now +
// pool.DefaultTimeout(role, caps), cut to ctx's deadline when that is
// sooner. It bounds every Acquire (passed as Request.Deadline), every
// attempt (each gets min(permit.RequestTimeout(), the attempt bound of
// Settings.AttemptTimeout, time left)) and every backoff. Each decision is
// told whether an endpoint this call has not failed on can take the retry
// (retrypolicy.Attempt.ElsewhereAvailable): such a failover waits no delay.
func (c *Client) do(ctx context.Context, cs *callState, role endpoint.Role) error {
	caps := capabilitiesFrom(ctx)
	timeout, err := c.pool.DefaultTimeout(role, caps)
	if err != nil {
		return &CallError{Method: cs.method, errs: []error{err}}
	}
	now := c.clock.Now()
	cs.deadline = now.Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(cs.deadline) {
		cs.deadline = d
	}
	switch {
	case c.attemptTO > 0:
		cs.attemptMax = c.attemptTO
	case c.attemptTO == 0:
		cs.attemptMax = cs.deadline.Sub(now) / 2
	}
	call := c.policy.Begin()
	defer call.End()

	var (
		attempts  []Attempt
		avoid     []string
		amb       bool
		lastErr   error
		lastCause retrypolicy.Cause
	)
	fail := func(extra error) error {
		ce := &CallError{Method: cs.method, Cause: lastCause, Attempts: attempts}
		if lastErr != nil {
			ce.errs = append(ce.errs, lastErr)
		}
		if extra != nil {
			ce.errs = append(ce.errs, extra)
		}
		if amb {
			ce.errs = append(ce.errs, ErrAmbiguousDispatch)
		}
		return ce
	}
	for n := 1; ; n++ {
		req := pool.Request{Role: role, Method: cs.method, Capabilities: caps, Avoid: avoid, Deadline: cs.deadline}
		if cs.class == retrypolicy.NeverAfterDispatch {
			c.lastResorts(&req, c.clock.Now(), cs.deadline)
		}
		pm, err := c.pool.Acquire(ctx, req)
		if err != nil {
			if len(attempts) == 0 {
				switch {
				case ctx.Err() != nil:
					lastCause = retrypolicy.Canceled
				case errors.Is(err, pool.ErrDeadline):
					lastCause = retrypolicy.Timeout
				}
			}
			return fail(err)
		}
		run := attemptRun{pm: pm, start: c.clock.Now()}
		// (hedged sets run.end itself, for both attempts it ran)
		if c.hedgeAfter > 0 && cs.class == retrypolicy.Idempotent {
			var side *attemptRun
			if run, side = c.hedged(ctx, cs, run, req, call); side != nil {
				c.settleSide(side)
				sa := c.attemptOf(side)
				sa.Decision = retrypolicy.RuleSuperseded.Stop()
				attempts = append(attempts, sa)
				c.notify(ctx, cs.method, n, &sa, side.o.err)
				n++
				if !side.superseded { // it failed on its own: no retry there
					avoid = append(avoid, side.pm.Endpoint())
				}
			}
		} else {
			run.o = c.attempt(ctx, cs, pm)
			run.end = c.clock.Now()
		}
		pm, o := run.pm, run.o
		record(pm, &o)
		c.noteDoubt(pm.Endpoint(), &o)
		a := c.attemptOf(&run)
		if o.cause == 0 {
			c.notify(ctx, cs.method, n, &a, nil)
			return nil
		}
		lastErr, lastCause = o.err, o.cause
		// Can the retry fail over to an endpoint this call has not failed
		// on? Then it waits neither a backoff nor the provider's delay
		// (which binds the endpoint that sent it, now cooling down).
		// (tried may share avoid's spare capacity: avoid's own elements
		// are untouched, and it becomes tried only on a failover.)
		tried := append(avoid, pm.Endpoint())
		d := call.Next(retrypolicy.Attempt{
			Number:             n,
			Cause:              o.cause,
			Dispatch:           o.dispatch,
			Class:              cs.class,
			ProviderDelay:      o.retryAfter,
			ElsewhereAvailable: c.pool.HasAlternative(role, caps, tried),
			TimeLeft:           cs.deadline.Sub(c.clock.Now()),
		})
		if cs.class == retrypolicy.NeverAfterDispatch && ambiguous(o.cause, o.dispatch) {
			amb = true
			if d.Retry { // the policy must never do this; the transport makes sure
				d = retrypolicy.RuleMaybeDispatched.Stop()
			}
		}
		a.Decision = d
		attempts = append(attempts, a)
		c.notify(ctx, cs.method, n, &a, o.err)
		if !d.Retry {
			return fail(nil)
		}
		if d.OtherEndpoint {
			avoid = tried
		}
		if d.Delay > 0 {
			t := c.clock.NewTimer(d.Delay)
			select {
			case <-t.Chan():
			case <-ctx.Done():
				t.Stop()
				return fail(ctx.Err())
			}
		}
	}
}

// notify reports one attempt to OnAttempt and the logger (names only).
func (c *Client) notify(ctx context.Context, method string, n int, a *Attempt, err error) {
	if c.onAttempt != nil {
		c.onAttempt(method, *a)
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
		slog.Int("attempt", n),
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
func (c *Client) attemptOf(r *attemptRun) Attempt {
	return Attempt{
		Endpoint:   r.pm.Endpoint(),
		Tier:       r.pm.Tier(),
		Cause:      r.o.cause,
		Dispatch:   r.o.dispatch,
		HTTPStatus: r.o.status,
		RPCCode:    r.o.rpcCode,
		Duration:   r.end.Sub(r.start),
		Hedge:      r.hedge,
	}
}
