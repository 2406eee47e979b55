package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// TestNoCutWhenTheBudgetCannotPayARetry: plan 010, "When an attempt is
// cut": a cut is worth it only when the time saved buys another attempt
// elsewhere, so an attempt is bounded early only when another endpoint
// can take the call and the retry policy could grant a counted retry
// now: MaxRetries and the shared retry budget (retry.Call.CanRetry). With
// the budget spent (an outage, the very case it exists for) a read
// answered at 900 ms of its 1 s budget runs to the deadline and is
// answered; cut at 500 ms (half the budget), as it was when cuttable
// asked MaxRetries only, its retry was refused (RuleBudget) and the call
// failed.
//
// The assertion is on the bound the attempt reports (Attempt.Timeout),
// so it does not depend on whether the cut's timer goroutine or the
// server's answer runs first after the clock passes both.
func TestNoCutWhenTheBudgetCannotPayARetry(t *testing.T) {
	rec := newRecorder()
	e := newEnvOneClock(t, []fixtures.Member{member("a", 0), member("b", 1)}, conf{OnAttempt: rec.on,
		Retry: func(r *retrypolicy.Settings) { r.BudgetMinRetries, r.BudgetBurst = 0, 0 }})
	e.server("a").SetScript(fixtures.Always(fixtures.Fault{Delay: 900 * time.Millisecond}))
	done := async(func() error { _, err := getBalance(context.Background(), e.client); return err })
	g := guardCtx(t)
	if err := e.server("a").WaitRequests(g, 1); err != nil {
		t.Fatal(err)
	}
	if err := e.clock.BlockUntilContext(g, 2); err != nil { // the attempt's timer, the server's delay
		t.Fatal(err)
	}
	e.clock.Advance(900 * time.Millisecond)
	err := wait(t, done)
	as := rec.drain()
	if len(as) == 0 {
		t.Fatal("no attempt observed")
	}
	if err != nil || as[0].Timeout < time.Second {
		t.Fatalf("the only attempt ran under a %v bound (err %v, decision %v); with no retry the budget could pay, it should run to the call's 1s deadline",
			as[0].Timeout, err, as[0].Decision.Rule)
	}
}

// TestNoCutWhenTheOnlyOtherEndpointCoolsDownPastTheDeadline: README,
// "A hanging endpoint is cut off ... only when that helps": an attempt is
// cut only when another endpoint could take the call before its deadline
// (admission.Pool.AlternativeBefore). The other endpoint here answered
// 429 with Retry-After: 60 (its cooldown runs a minute, the call's budget
// is 1 s), so nothing can take the retry: the read on a, answered at
// 900 ms, runs to the deadline and is answered. Cut at 500 ms, as it was
// when cuttable asked HasAlternative (which ignores cooldowns), its retry
// waited for b until the deadline and the call failed.
func TestNoCutWhenTheOnlyOtherEndpointCoolsDownPastTheDeadline(t *testing.T) {
	rec := newRecorder()
	e := newEnvOneClock(t, []fixtures.Member{member("b", 0), member("a", 1)}, conf{OnAttempt: rec.on})
	e.server("b").SetFault(fixtures.Status(429, "60"))
	if _, err := getBalance(context.Background(), e.client); err != nil { // b: 429, then a
		t.Fatal(err)
	}
	if s := readSnapshot(t, e, "b"); s.CooldownRemaining < 59*time.Second {
		t.Fatalf("b cooldown %v, want a minute", s.CooldownRemaining)
	}
	rec.drain()
	e.server("a").SetScript(fixtures.Always(fixtures.Fault{Delay: 900 * time.Millisecond}))
	done := async(func() error { _, err := getBalance(context.Background(), e.client); return err })
	g := guardCtx(t)
	if err := e.server("a").WaitRequests(g, 2); err != nil {
		t.Fatal(err)
	}
	if err := e.clock.BlockUntilContext(g, 2); err != nil { // the attempt's timer, the server's delay
		t.Fatal(err)
	}
	e.clock.Advance(900 * time.Millisecond)
	// a's attempt is reported (OnAttempt) before anything follows it: cut,
	// its retry then waits for b, so on to the call's deadline.
	var first []transport.Attempt
	select {
	case a := <-rec.ch:
		first = append(first, a)
		if a.Cause != 0 {
			e.clock.Advance(100 * time.Millisecond)
		}
	case <-g.Done():
		t.Fatal("no attempt reported")
	}
	err := wait(t, done)
	as := append(first, rec.drain()...)
	if len(as) == 0 {
		t.Fatal("no attempt observed")
	}
	if err != nil || as[0].Timeout < time.Second {
		t.Fatalf("a's attempt ran under a %v bound (err %v) while b cools down %v more; nothing could follow a cut",
			as[0].Timeout, err, readSnapshot(t, e, "b").CooldownRemaining)
	}
}
