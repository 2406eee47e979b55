package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/retrypolicy"
)

// decayedHang is the setting of the last chance's tests (plans/008,
// "The last chance"): tier 0 holds first, which answers 503 to every
// read; tier 1 holds b, which answered 20 ms ago in 20 ms, and c, which
// failed once 10 s ago and now never answers. c's failure has decayed to
// a cost far below b's, so the balancer alone prefers it: sent there, a
// read's last attempt hangs until the call's deadline and fails the read
// (the soak's rare miss, plans/005 "One package at a time").
func decayedHang(t *testing.T, retry func(*retrypolicy.Settings)) (*env, *recorder) {
	t.Helper()
	unavailable := fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 503}
	first := member("first", 0)
	first.Options.Script = fixtures.Always(unavailable)
	b := member("b", 1)
	b.Options.Script = fixtures.FirstN(1, fixtures.Fault{Delay: 20 * time.Millisecond})
	c := member("c", 1)
	c.Options.Script = func(call fixtures.Call) fixtures.Fault {
		if call.N <= 1 {
			return unavailable
		}
		return fixtures.Fault{Kind: fixtures.Hang}
	}
	rec := newRecorder()
	e := newEnvOneClock(t, []fixtures.Member{first, b, c}, conf{OnAttempt: rec.on, Retry: retry})

	if _, err := getBalance(engine.WithEndpointOnce(context.Background(), "c"), e.client); err == nil {
		t.Fatal("c's first answer is a 503")
	}
	e.clock.Advance(10 * time.Second)
	done := async(func() error {
		_, err := getBalance(engine.WithEndpointOnce(context.Background(), "b"), e.client)
		return err
	})
	if err := e.server("b").WaitRequests(guardCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	if err := e.clock.BlockUntilContext(guardCtx(t), 2); err != nil { // the attempt's timer, b's delay
		t.Fatal(err)
	}
	e.clock.Advance(20 * time.Millisecond)
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	rec.drain()
	return e, rec
}

// readOnce makes one read under ctx and requires it to be answered by
// b after first failed, without a request reaching c.
func readOnce(t *testing.T, e *env, rec *recorder, ctx context.Context) {
	t.Helper()
	guard, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	hung := async(func() error { return e.server("c").WaitRequests(guard, 2) })
	done := async(func() error {
		_, err := getBalance(ctx, e.client)
		return err
	})
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("read: %v", err)
		}
	case err := <-hung:
		if err == nil {
			t.Fatal("the read's last chance went to c, which never answers: it fails at the deadline")
		}
	case <-guardCtx(t).Done():
		t.Fatal("read never returned")
	}
	if got := endpoints(rec.drain()); len(got) != 2 || got[0] != "first" || got[1] != "b" {
		t.Fatalf("attempts on %v, want first then b", got)
	}
}

// TestALastRetryGoesToAnEndpointThatAnswered: with MaxRetries 1, the
// retry after first's failure is the read's last chance: b.
func TestALastRetryGoesToAnEndpointThatAnswered(t *testing.T) {
	e, rec := decayedHang(t, func(r *retrypolicy.Settings) { r.MaxRetries = 1 })
	readOnce(t, e, rec, context.Background())
}

// TestShortTimeIsALastChance: with retries to spare but 400 ms left,
// less than any adaptive cut (AdaptiveFloor), the retry after first's
// failure could not be cut for another: it is the read's last chance,
// and goes to b.
func TestShortTimeIsALastChance(t *testing.T) {
	e, rec := decayedHang(t, nil)
	readOnce(t, e, rec, withClockTimeout(t, e.clock, 400*time.Millisecond))
}
