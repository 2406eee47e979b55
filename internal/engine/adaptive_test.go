package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// The budget of a call to longMember endpoints (the default request
// timeout), and what the fixed rule gives one attempt: half of it.
const (
	longBudget = 10 * time.Second
	fixedRule  = longBudget / 2
)

// longMember is a member with the default 10 s request timeout, so that
// the fixed rule (5 s) is far from AdaptiveFloor (500 ms).
func longMember(name string, tier int) fixtures.Member {
	m := member(name, tier)
	l := endpoint.Limits{RequestTimeout: longBudget}
	m.Read, m.Send = &l, &l
	return m
}

// seed records n getBalance answers of d on endpoint name, as the
// transport's timed reads do: a timed permit, the clock advanced by d, a
// success.
func seed(t *testing.T, e *env, name string, n int, d time.Duration) {
	t.Helper()
	req := admission.Request{Role: endpoint.RoleRead, Method: "getBalance", Timed: true, Endpoint: name}
	for range n {
		pm, err := e.pool.Acquire(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(d)
		pm.Done(retrypolicy.Outcome{Dispatch: retrypolicy.Answered, HTTPStatus: 200})
	}
}

// adaptive is the attempt timeout the adaptive rule gives a first attempt
// on name now.
func adaptive(t *testing.T, e *env, name string) time.Duration {
	t.Helper()
	l := e.pool.Latency(name, endpoint.RoleRead, "getBalance")
	if l.Source == admission.LatencyNone {
		t.Fatalf("%s: no latency to go by", name)
	}
	return max(engine.AdaptiveMultiple*l.P99, engine.AdaptiveFloor)
}

// pendingAfter advances the clock by d, then proves the call still runs
// with n clock waiters.
func pendingAfter(t *testing.T, e *env, done <-chan error, n int, d time.Duration) {
	t.Helper()
	e.clock.Advance(d)
	if err := e.clock.BlockUntilContext(guardCtx(t), n); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Fatalf("the call ended (%v) before its attempt timed out", err)
	default:
	}
}

func TestAdaptiveTimeoutFailsOverAtThePeersPace(t *testing.T) {
	// b answers in 200 ms; a, new, hangs. a has no answers of its own, so
	// its role's pace times it: 3 × p99 (604 ms), not half the 10 s budget.
	rec := newRecorder()
	e := newEnv(t, []fixtures.Member{longMember("a", 0), longMember("b", 0)}, conf{OnAttempt: rec.on}, nil)
	seed(t, e, "b", 40, 200*time.Millisecond)
	if l := e.pool.Latency("a", endpoint.RoleRead, "getBalance"); l.Source != admission.LatencyRole {
		t.Fatalf("a's latency %+v, want its role's", l)
	}
	timeout := adaptive(t, e, "a")
	if timeout <= engine.AdaptiveFloor || timeout > 3*250*time.Millisecond {
		t.Fatalf("timeout %v, want 3 × a p99 just above 200 ms", timeout)
	}
	e.server("a").SetFault(fixtures.Fault{Kind: fixtures.Hang})
	done := async(func() error { _, err := getBalance(context.Background(), e.client); return err })
	if err := e.server("a").WaitRequests(guardCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	if err := e.clock.BlockUntilContext(guardCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	pendingAfter(t, e, done, 1, timeout-time.Millisecond)
	if n := e.server("b").Stats().Calls["getBalance"]; n != 0 {
		t.Fatalf("b got %d requests before a timed out", n)
	}
	e.clock.Advance(time.Millisecond)
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	as := rec.drain()
	if len(as) != 2 || as[0].Endpoint != "a" || as[0].Cause != retrypolicy.Timeout || as[0].Duration != timeout ||
		as[1].Endpoint != "b" || as[1].Cause != 0 {
		t.Fatalf("attempts %+v, want a timed out after %v, then b", as, timeout)
	}
}

func TestAdaptiveTimeoutSparesASlowHealthyEndpoint(t *testing.T) {
	// a and b answer in 5 ms; c, new, answers everything after 300 ms.
	// Its role's pace gives it the floor, 500 ms: its answers come first.
	// (c is alone in tier 0, so that every call goes there first.)
	rec := newRecorder()
	c := longMember("c", 0)
	c.Options.Script = fixtures.Always(fixtures.Fault{Delay: 300 * time.Millisecond})
	e := newEnvOneClock(t, []fixtures.Member{longMember("a", 1), longMember("b", 1), c}, conf{OnAttempt: rec.on})
	seed(t, e, "a", 30, 5*time.Millisecond)
	seed(t, e, "b", 30, 5*time.Millisecond)
	if got := adaptive(t, e, "c"); got != engine.AdaptiveFloor {
		t.Fatalf("c's timeout %v, want the floor", got)
	}
	answer := func() {
		t.Helper()
		n := e.server("c").Stats().Calls["getBalance"]
		done := async(func() error { _, err := getBalance(context.Background(), e.client); return err })
		if err := e.server("c").WaitRequests(guardCtx(t), n+1); err != nil {
			t.Fatal(err)
		}
		// The attempt's timer and the server's delay.
		if err := e.clock.BlockUntilContext(guardCtx(t), 2); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(300 * time.Millisecond)
		if err := wait(t, done); err != nil {
			t.Fatal(err)
		}
		if as := rec.drain(); len(as) != 1 || as[0].Endpoint != "c" || as[0].Cause != 0 || as[0].Duration != 300*time.Millisecond {
			t.Fatalf("attempts %+v, want c answering after 300 ms", as)
		}
	}
	answer()
	// Once c has answers of its own, its own pace times it: 3 × 300 ms.
	seed(t, e, "c", 30, 300*time.Millisecond)
	if l := e.pool.Latency("c", endpoint.RoleRead, "getBalance"); l.Source != admission.LatencyOwn {
		t.Fatalf("c's latency %+v, want its own", l)
	}
	if got := adaptive(t, e, "c"); got < 900*time.Millisecond || got > 1200*time.Millisecond {
		t.Fatalf("c's timeout %v, want 3 × just above 300 ms", got)
	}
}

func TestAdaptiveTimeoutDoesNotCutAnEndpointThatTurnsSlow(t *testing.T) {
	// One endpoint, 5 ms answers, then every answer after 300 ms: the
	// floor keeps its first slow answers, before its history shows them.
	rec := newRecorder()
	a := longMember("a", 0)
	e := newEnvOneClock(t, []fixtures.Member{a}, conf{OnAttempt: rec.on})
	seed(t, e, "a", 40, 5*time.Millisecond)
	e.server("a").SetScript(fixtures.Always(fixtures.Fault{Delay: 300 * time.Millisecond}))
	for i := range 3 {
		done := async(func() error { _, err := getBalance(context.Background(), e.client); return err })
		if err := e.server("a").WaitRequests(guardCtx(t), i+1); err != nil {
			t.Fatal(err)
		}
		if err := e.clock.BlockUntilContext(guardCtx(t), 2); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(300 * time.Millisecond)
		if err := wait(t, done); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	for _, a := range rec.drain() {
		if a.Cause != 0 {
			t.Fatalf("attempt %+v failed", a)
		}
	}
	if s := readSnapshot(t, e, "a"); s.Failures != 0 {
		t.Fatalf("a took %d failures", s.Failures)
	}
}

func TestAdaptiveTimeoutDoublesPerRetryAndRunsTheLastToTheDeadline(t *testing.T) {
	// Every endpoint hangs; the role's history is fast (c's answers). The
	// first attempt gets the floor, the second twice it, and the third,
	// after which MaxRetries 2 allows no retry, is not cut at all: it runs
	// until the call's deadline (a cut there buys nothing).
	rec := newRecorder()
	s := conf{OnAttempt: rec.on, Retry: func(r *retrypolicy.Settings) { r.MaxRetries = 2 }}
	e := newEnv(t, []fixtures.Member{longMember("a", 0), longMember("b", 0), longMember("c", 1)}, s, nil)
	seed(t, e, "c", 40, 5*time.Millisecond)
	for _, name := range []string{"a", "b", "c"} {
		e.server(name).SetFault(fixtures.Fault{Kind: fixtures.Hang})
	}
	done := async(func() error { _, err := getBalance(context.Background(), e.client); return err })
	steps := []time.Duration{engine.AdaptiveFloor, 2 * engine.AdaptiveFloor, longBudget - 3*engine.AdaptiveFloor}
	for i, d := range steps {
		if err := e.clock.BlockUntilContext(guardCtx(t), 1); err != nil {
			t.Fatal(err)
		}
		pendingAfter(t, e, done, 1, d-time.Millisecond)
		e.clock.Advance(time.Millisecond)
		a := <-rec.ch
		if a.Cause != retrypolicy.Timeout || a.Duration != d {
			t.Fatalf("attempt %d: %+v, want a timeout after %v", i+1, a, d)
		}
	}
	ce := callErr(t, wait(t, done))
	if ce.Cause != retrypolicy.Timeout || len(ce.Attempts) != 3 || ce.Attempts[2].Endpoint != "c" {
		t.Fatalf("error %v, attempts %+v", ce, ce.Attempts)
	}
}

func TestAdaptiveRuleStandsAsideWhenMostAttemptsAreCut(t *testing.T) {
	// Every endpoint answered in 5 ms, then every one hangs (as a cluster
	// that turned slower than its history at once looks to the rule):
	// eight calls' first attempts are all cut at the floor. With that many
	// cuts, and more than a quarter of the bounded attempts, the rule
	// stands aside: the next read gets the fixed rule (5 s). Two windows
	// later it is back.
	rec := newRecorder()
	e := newEnv(t, []fixtures.Member{longMember("a", 0), longMember("b", 0), longMember("c", 0)}, conf{OnAttempt: rec.on}, nil)
	for _, name := range []string{"a", "b", "c"} {
		seed(t, e, name, 30, 5*time.Millisecond)
		e.server(name).SetFault(fixtures.Fault{Kind: fixtures.Hang})
	}
	next := func() transport.Attempt {
		t.Helper()
		select {
		case a := <-rec.ch:
			return a
		case <-guardCtx(t).Done():
			t.Fatal("no attempt reported")
			return transport.Attempt{}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var calls []<-chan error
	for range 8 {
		calls = append(calls, async(func() error { _, err := getBalance(ctx, e.client); return err }))
	}
	if err := e.clock.BlockUntilContext(guardCtx(t), 8); err != nil { // eight attempt timers
		t.Fatal(err)
	}
	e.clock.Advance(engine.AdaptiveFloor)
	for range 8 {
		if a := next(); a.Cause != retrypolicy.Timeout || a.Duration != engine.AdaptiveFloor {
			t.Fatalf("attempt %+v, want a cut at the floor", a)
		}
	}
	cancel() // the eight calls' retries hang too: end them
	for _, ch := range calls {
		if err := wait(t, ch); err == nil {
			t.Fatal("a read of three blackholes succeeded")
		}
	}
	rec.drain()
	// cut runs one read whose first attempt takes d, then ends it.
	cut := func(d time.Duration) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := async(func() error { _, err := getBalance(ctx, e.client); return err })
		if err := e.clock.BlockUntilContext(guardCtx(t), 1); err != nil {
			t.Fatal(err)
		}
		pendingAfter(t, e, done, 1, d-time.Millisecond)
		e.clock.Advance(time.Millisecond)
		if a := next(); a.Cause != retrypolicy.Timeout || a.Duration != d {
			t.Fatalf("attempt %+v, want a cut after %v", a, d)
		}
		cancel()
		_ = wait(t, done)
		rec.drain()
	}
	cut(fixedRule)
	cut(engine.AdaptiveFloor) // 5 s later: the cuts are forgotten
}

func TestFixedRuleWhereAdaptiveDoesNotApply(t *testing.T) {
	// With a fast history in the read role: a read under a fixed
	// AttemptTimeout keeps the fixed rule; a send the server read, and a
	// read with no retry left, are not cut at all: they run until the
	// call's deadline, since nothing could follow the cut.
	for _, tc := range []struct {
		name    string
		s       conf
		timeout time.Duration
		call    func(t *testing.T, e *env) error
	}{{
		name:    "send",
		timeout: longBudget,
		call: func(t *testing.T, e *env) error {
			params, _ := signedTx(t, 1400)
			var got solana.Signature
			return e.client.CallForInto(context.Background(), &got, "sendTransaction", params)
		},
	}, {
		name:    "attempt_timeout",
		s:       conf{AttemptTimeout: 2 * time.Second, Retry: func(r *retrypolicy.Settings) { r.MaxRetries = 1 }},
		timeout: 2 * time.Second,
	}, {
		name:    "no retry left",
		s:       conf{Retry: noRetries},
		timeout: longBudget,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			rec := newRecorder()
			tc.s.OnAttempt = rec.on
			e := newEnv(t, []fixtures.Member{longMember("a", 0), longMember("b", 1)}, tc.s, nil)
			seed(t, e, "b", 40, 5*time.Millisecond)
			e.server("a").SetFault(fixtures.Fault{Kind: fixtures.Hang})
			call := tc.call
			if call == nil {
				call = func(_ *testing.T, e *env) error { _, err := getBalance(context.Background(), e.client); return err }
			}
			done := async(func() error { return call(t, e) })
			if err := e.server("a").WaitRequests(guardCtx(t), 1); err != nil {
				t.Fatal(err)
			}
			if err := e.clock.BlockUntilContext(guardCtx(t), 1); err != nil {
				t.Fatal(err)
			}
			pendingAfter(t, e, done, 1, tc.timeout-time.Millisecond)
			e.clock.Advance(time.Millisecond)
			a := <-rec.ch
			if a.Endpoint != "a" || a.Cause != retrypolicy.Timeout || a.Duration != tc.timeout {
				t.Fatalf("first attempt %+v, want a's timeout after %v", a, tc.timeout)
			}
			err := wait(t, done)
			switch tc.name {
			case "send":
				if !errors.Is(err, engine.ErrAmbiguousDispatch) {
					t.Fatalf("send: %v, want ambiguous", err)
				}
			case "no retry left":
				if err == nil {
					t.Fatal("a read with no retry succeeded")
				}
			default:
				if err != nil { // b, in tier 1, answered the retry
					t.Fatal(err)
				}
			}
		})
	}
}

func TestHedgeAutoFiresAtTheP95(t *testing.T) {
	// b answers in 100 ms; a, new, hangs: a's hedge starts at its role's
	// p95 (just above 100 ms), not a millisecond before. Overtaken at an
	// automatic delay, a takes a failure but is not put in doubt.
	rec := newRecorder()
	e := newEnv(t, []fixtures.Member{longMember("a", 0), longMember("b", 0)},
		conf{HedgeAfter: transport.HedgeAuto, OnAttempt: rec.on}, nil)
	seed(t, e, "b", 40, 100*time.Millisecond)
	l := e.pool.Latency("a", endpoint.RoleRead, "getBalance")
	if l.Source != admission.LatencyRole || l.P95 <= 100*time.Millisecond || l.P95 > 125*time.Millisecond {
		t.Fatalf("a's latency %+v, want its role's p95 just above 100 ms", l)
	}
	e.server("a").SetFault(fixtures.Fault{Kind: fixtures.Hang})
	done := async(func() error { _, err := getBalance(context.Background(), e.client); return err })
	if err := e.server("a").WaitRequests(guardCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	// The attempt's timer and the hedge's.
	if err := e.clock.BlockUntilContext(guardCtx(t), 2); err != nil {
		t.Fatal(err)
	}
	pendingAfter(t, e, done, 2, l.P95-time.Millisecond)
	if n := e.server("b").Stats().Calls["getBalance"]; n != 0 {
		t.Fatalf("b got %d requests before the p95", n)
	}
	e.clock.Advance(time.Millisecond)
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	as := rec.drain()
	if len(as) != 2 || as[0].Endpoint != "a" || as[0].Decision.Rule != retrypolicy.RuleSuperseded ||
		as[1].Endpoint != "b" || !as[1].Hedge || as[1].Cause != 0 {
		t.Fatalf("attempts %+v, want a overtaken by b's hedge", as)
	}
	if s := readSnapshot(t, e, "a"); s.Failures != 1 || s.DoubtRemaining != 0 {
		t.Fatalf("a: %d failures, in doubt %v; want one failure, no doubt", s.Failures, s.DoubtRemaining)
	}
}

func TestHedgeAutoWithNothingKnown(t *testing.T) {
	// No latency anywhere: the hedge starts at HedgeAutoCold, while the
	// attempt keeps the fixed rule (5 s). a, alone in tier 0, takes the
	// attempt; b, in tier 1, the hedge.
	e := newEnv(t, []fixtures.Member{longMember("a", 0), longMember("b", 1)},
		conf{HedgeAfter: transport.HedgeAuto, Retry: noRetries}, nil)
	e.server("a").SetFault(fixtures.Fault{Kind: fixtures.Hang})
	e.server("b").SetFault(fixtures.Fault{Kind: fixtures.Hang})
	done := async(func() error { _, err := getBalance(context.Background(), e.client); return err })
	if err := e.server("a").WaitRequests(guardCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	if err := e.clock.BlockUntilContext(guardCtx(t), 2); err != nil {
		t.Fatal(err)
	}
	pendingAfter(t, e, done, 2, engine.HedgeAutoCold-time.Millisecond)
	if n := e.server("b").Stats().Calls["getBalance"]; n != 0 {
		t.Fatalf("b got a hedge before %v", engine.HedgeAutoCold)
	}
	e.clock.Advance(time.Millisecond)
	if err := e.server("b").WaitRequests(guardCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	// Both hang, and no retry may follow: neither is cut, both run until
	// the call's deadline.
	pendingAfter(t, e, done, 2, longBudget-engine.HedgeAutoCold-time.Millisecond)
	e.clock.Advance(time.Millisecond)
	if err := wait(t, done); err == nil {
		t.Fatal("a read of two blackholes succeeded")
	}
}

func TestHedgeAutoIsAValidSetting(t *testing.T) {
	s := transport.DefaultSettings()
	s.HedgeAfter = transport.HedgeAuto
	if err := s.Validate(); err != nil {
		t.Fatalf("HedgeAuto: %v", err)
	}
	s.HedgeAfter = -2
	var fe *endpoint.Problem
	if err := s.Validate(); !errors.As(err, &fe) || fe.Path != "hedge_after" {
		t.Fatalf("-2: %v, want a hedge_after problem", err)
	}
}
