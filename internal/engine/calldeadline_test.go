package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// clockCtx is a context whose deadline is on a fake clock: it reports
// that deadline, and ends with context.DeadlineExceeded when the clock
// reaches it. (clockwork's own fake contexts block in Err until they
// end, which net/http and the transport call on live contexts.)
type clockCtx struct {
	context.Context
	deadline time.Time
}

func (c *clockCtx) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *clockCtx) Err() error {
	if c.Context.Err() == nil {
		return nil
	}
	return context.Cause(c.Context)
}

// withClockTimeout is a context that ends d from now on clock, and is
// canceled at the end of the test. It adds one waiter to clock.
func withClockTimeout(t *testing.T, clock *clockwork.FakeClock, d time.Duration) context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	timer := clock.AfterFunc(d, func() { cancel(context.DeadlineExceeded) })
	t.Cleanup(func() {
		timer.Stop()
		cancel(context.Canceled)
	})
	return &clockCtx{Context: ctx, deadline: clock.Now().Add(d)}
}

// TestCallerDeadlineIsTheError: one endpoint that hangs, a 50 ms context.
// The call runs until the caller's deadline, not half of it, and its error
// matches context.DeadlineExceeded while staying a *CallError with its
// attempt.
func TestCallerDeadlineIsTheError(t *testing.T) {
	for _, method := range []string{"getBalance", "sendTransaction"} {
		t.Run(method, func(t *testing.T) {
			a := member("a", 0)
			a.Options.Script = fixtures.Always(fixtures.Fault{Kind: fixtures.Hang})
			e := newEnv(t, []fixtures.Member{a}, conf{}, nil)
			ctx := withClockTimeout(t, e.clock, 50*time.Millisecond)
			params := []any{somePubkey}
			if method == "sendTransaction" {
				params, _ = signedTx(t, 300)
			}
			start := e.clock.Now()
			done := async(func() error { return e.client.CallForInto(ctx, nil, method, params) })
			if err := e.server("a").WaitRequests(guardCtx(t), 1); err != nil {
				t.Fatal(err)
			}
			// The context's timer and the attempt's.
			pendingAfter(t, e, done, 2, 49*time.Millisecond)
			e.clock.Advance(time.Millisecond)
			err := wait(t, done)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err %v: want it to match context.DeadlineExceeded", err)
			}
			ce := callErr(t, err)
			if len(ce.Attempts) != 1 || ce.Attempts[0].Duration != 50*time.Millisecond || e.clock.Since(start) != 50*time.Millisecond {
				t.Fatalf("attempts %+v after %v: want one attempt of the whole 50ms", ce.Attempts, e.clock.Since(start))
			}
			// The attempt's timer and the context reach the deadline at one
			// instant, in either order: a timeout at the call's deadline
			// whichever wins (it read "canceled: attempt timed out", the
			// caller's fault, when the context did), judged as at the
			// engine's own deadline: the endpoint's, since it had its fair
			// bound (half the budget, 25 ms) and more.
			if a := ce.Attempts[0]; a.Cause != retrypolicy.Timeout || a.Fault != retrypolicy.EndpointFault || ce.Cause != retrypolicy.Timeout {
				t.Fatalf("attempt %s, %s; call %s: want a timeout, the endpoint's", a.Cause, a.Fault, ce.Cause)
			}
			if amb := errors.Is(err, engine.ErrAmbiguousDispatch); amb != (method == "sendTransaction") {
				t.Fatalf("ambiguous %v", amb)
			}
		})
	}
}

// TestCallerCancelIsTheError: a call whose context is canceled (with a
// cause) while its attempt hangs matches context.Canceled and the cause.
func TestCallerCancelIsTheError(t *testing.T) {
	a := member("a", 0)
	a.Options.Script = fixtures.Always(fixtures.Fault{Kind: fixtures.Hang})
	e := newEnv(t, []fixtures.Member{a}, conf{}, nil)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	done := async(func() error { _, err := getBalance(ctx, e.client); return err })
	if err := e.server("a").WaitRequests(guardCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("shutting down")
	cancel(stop)
	err := wait(t, done)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, stop) {
		t.Fatalf("err %v: want it to match context.Canceled and the cause", err)
	}
	if ce := callErr(t, err); len(ce.Attempts) != 1 || ce.Cause != retrypolicy.Canceled {
		t.Fatalf("attempts %+v, cause %v", ce.Attempts, ce.Cause)
	}
}

// TestNoRetryBeforeTheCallersDeadline: a rate limit whose Retry-After
// no retry can wait out before the caller's 200 ms deadline ends the call
// at once, and the error says it was the deadline (and the rate limit).
func TestNoRetryBeforeTheCallersDeadline(t *testing.T) {
	a := member("a", 0)
	a.Options.Script = fixtures.Always(fixtures.Status(429, "3"))
	e := newEnv(t, []fixtures.Member{a}, conf{}, nil)
	_, err := getBalance(withClockTimeout(t, e.clock, 200*time.Millisecond), e.client)
	var se *transport.StatusError
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &se) || se.StatusCode != 429 {
		t.Fatalf("err %v: want the rate limit and context.DeadlineExceeded", err)
	}
	if ce := callErr(t, err); len(ce.Attempts) != 1 || ce.Attempts[0].Decision.Rule != retrypolicy.RuleDeadline {
		t.Fatalf("attempts %+v", ce.Attempts)
	}
}

// TestOwnBudgetIsNotTheCallersDeadline: without a deadline of the
// caller's, a call that runs out of its own budget (request_timeout) says
// Timeout and does not claim the caller's deadline passed.
func TestOwnBudgetIsNotTheCallersDeadline(t *testing.T) {
	a := member("a", 0)
	a.Options.Script = fixtures.Always(fixtures.Fault{Kind: fixtures.Hang})
	e := newEnv(t, []fixtures.Member{a}, conf{}, nil)
	done := async(func() error { _, err := getBalance(context.Background(), e.client); return err })
	e.expire(e.server("a"), 1, time.Second) // the member's request_timeout
	err := wait(t, done)
	ce := callErr(t, err)
	if errors.Is(err, context.DeadlineExceeded) || ce.Cause != retrypolicy.Timeout || len(ce.Attempts) != 1 {
		t.Fatalf("err %v, attempts %+v: want a Timeout of the call's own budget", err, ce.Attempts)
	}
	if r := e.pool.Specs()[0].Roles[endpoint.RoleRead].RequestTimeout; r != time.Second {
		t.Fatalf("request_timeout %v", r)
	}
}
