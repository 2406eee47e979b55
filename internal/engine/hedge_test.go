package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/retrypolicy"
)

const hedgeAfter = 50 * time.Millisecond

// guardCtx bounds a wait on another goroutine in real time, so that a
// broken test fails instead of hanging; it is never what a test asserts.
func guardCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func readSnapshot(t *testing.T, e *env, name string) endpoint.Snapshot {
	t.Helper()
	for _, s := range e.pool.Snapshot() {
		if s.Name == name && s.Role == endpoint.RoleRead {
			return s
		}
	}
	t.Fatalf("no read snapshot for %s", name)
	return endpoint.Snapshot{}
}

func TestHedgeOvertakesABlackhole(t *testing.T) {
	rec := newRecorder()
	e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 0)},
		conf{HedgeAfter: hedgeAfter, OnAttempt: rec.on}, nil)
	e.server("a").SetFault(fixtures.Fault{Kind: fixtures.Hang})
	g := guardCtx(t)
	done := make(chan error, 1)
	var out uint64
	go func() {
		r, err := getBalance(context.Background(), e.client)
		if err == nil {
			out = r.Value
		}
		done <- err
	}()
	if err := e.server("a").WaitRequests(g, 1); err != nil {
		t.Fatal(err)
	}
	// The attempt's timer and the hedge's: the hedge starts exactly at
	// HedgeAfter, not a millisecond before.
	if err := e.clock.BlockUntilContext(g, 2); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(hedgeAfter - time.Millisecond)
	if err := e.clock.BlockUntilContext(g, 2); err != nil {
		t.Fatal(err)
	}
	if n := e.server("b").Stats().Calls["getBalance"]; n != 0 {
		t.Fatalf("b got %d requests before HedgeAfter", n)
	}
	e.clock.Advance(time.Millisecond)
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	if out != 2039280 {
		t.Fatalf("balance %d, want the recorded 2039280", out)
	}
	as := rec.drain()
	if len(as) != 2 || as[0].Endpoint != "a" || as[0].Decision.Rule != retrypolicy.RuleSuperseded || as[0].Hedge ||
		as[1].Endpoint != "b" || as[1].Cause != 0 || !as[1].Hedge {
		t.Fatalf("attempts %+v, want a superseded, then b's hedge answering", as)
	}
	// a's read role took a failure (five in a row eject it) and a is in
	// doubt: sends go to b.
	if s := readSnapshot(t, e, "a"); s.Failures != 1 {
		t.Fatalf("a: %d failures, want 1", s.Failures)
	}
	e.server("a").SetFault(fixtures.Fault{})
	if n := sendsOnA(t, e, 1000, 2); n != 0 {
		t.Fatalf("%d sends reached a, overtaken by a hedge just before", n)
	}
}

func TestNoHedgeWhenTheAttemptAnswers(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 0)}, conf{HedgeAfter: hedgeAfter}, nil)
	for range 4 {
		if _, err := getBalance(context.Background(), e.client); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := e.server("a").Stats().Calls["getBalance"], e.server("b").Stats().Calls["getBalance"]; a != 2 || b != 2 {
		t.Fatalf("requests a %d, b %d; want 2 each (no hedge)", a, b)
	}
}

func TestNoHedgeForSendsOrWithoutAnotherEndpoint(t *testing.T) {
	for _, tc := range []struct {
		name    string
		members []fixtures.Member
		call    func(e *env) error
		method  string
	}{{
		name:    "send",
		members: []fixtures.Member{member("a", 0), member("b", 0)},
		method:  "sendTransaction",
		call: func(e *env) error {
			params, _ := signedTx(t, 1100)
			var got solana.Signature
			return e.client.CallForInto(context.Background(), &got, "sendTransaction", params)
		},
	}, {
		name:    "single endpoint",
		members: []fixtures.Member{member("a", 0)},
		method:  "getBalance",
		call:    func(e *env) error { _, err := getBalance(context.Background(), e.client); return err },
	}} {
		t.Run(tc.name, func(t *testing.T) {
			s := conf{HedgeAfter: hedgeAfter, Retry: noRetries} // one attempt, so one clock advance ends the call
			e := newEnv(t, tc.members, s, nil)
			e.server("a").SetFault(fixtures.Fault{Kind: fixtures.Hang})
			done := async(func() error { return tc.call(e) })
			g := guardCtx(t)
			if err := e.server("a").WaitRequests(g, 1); err != nil {
				t.Fatal(err)
			}
			e.clock.Advance(hedgeAfter) // past HedgeAfter: nothing may start
			// The attempt times out on its own at the call's 1 s deadline:
			// with no retry allowed, no cut could buy another attempt.
			e.expire(e.server("a"), 1, time.Second-hedgeAfter)
			err := wait(t, done)
			if n := e.server("a").Stats().Calls[tc.method]; n != 1 {
				t.Fatalf("a got %d %s, want the one attempt", n, tc.method)
			}
			if b := e.cluster.Server("b"); b != nil {
				if n := b.Stats().Calls[tc.method]; n != 0 {
					t.Fatalf("b got %d %s: a hedge", n, tc.method)
				}
			}
			if tc.name == "send" && !errors.Is(err, engine.ErrAmbiguousDispatch) {
				t.Fatalf("send: %v, want ambiguous", err)
			}
			if tc.name == "single endpoint" && err == nil {
				t.Fatal("a read from a blackhole succeeded")
			}
		})
	}
}

func TestHedgeBothFail(t *testing.T) {
	// a never answers; the hedge to b is reset. Whichever fails last
	// decides the call (the test cannot order a reset seen in real time
	// against a fake-clock timeout, so it accepts either); the other is
	// superseded, and both endpoints take a failure.
	//
	// One retry is allowed, so that a's attempt may be cut (at half the
	// budget) while the hedge's, which nothing could follow, runs to the
	// deadline and so ends only by its reset; the retry budget holds one
	// retry, the hedge's, so that no retry follows the pair.
	rec := newRecorder()
	s := conf{HedgeAfter: hedgeAfter, OnAttempt: rec.on, Retry: func(r *retrypolicy.Settings) {
		r.MaxRetries, r.BudgetMinRetries, r.BudgetBurst = 1, 1, 0
	}}
	e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 0)}, s, nil)
	e.server("a").SetFault(fixtures.Fault{Kind: fixtures.Hang})
	e.server("b").SetFault(fixtures.Fault{Kind: fixtures.ResetAfterRead})
	done := async(func() error { _, err := getBalance(context.Background(), e.client); return err })
	g := guardCtx(t)
	if err := e.server("a").WaitRequests(g, 1); err != nil {
		t.Fatal(err)
	}
	if err := e.clock.BlockUntilContext(g, 2); err != nil { // a's attempt timer, the hedge timer
		t.Fatal(err)
	}
	e.clock.Advance(hedgeAfter)
	if err := e.server("b").WaitRequests(g, 1); err != nil {
		t.Fatal(err)
	}
	e.expire(e.server("a"), 1, 500*time.Millisecond-hedgeAfter)
	ce := callErr(t, wait(t, done))
	if len(ce.Attempts) != 2 {
		t.Fatalf("attempts %+v, want 2", ce.Attempts)
	}
	side, last := ce.Attempts[0], ce.Attempts[1]          // in attempt order: a, then its hedge
	if last.Decision.Rule == retrypolicy.RuleSuperseded { // a's timeout came last and decided
		side, last = last, side
	}
	if side.Decision.Rule != retrypolicy.RuleSuperseded || last.Decision.Rule == retrypolicy.RuleSuperseded ||
		ce.Cause != last.Cause || side.Endpoint == last.Endpoint {
		t.Fatalf("attempts %+v, cause %v; want one superseded, the other deciding", ce.Attempts, ce.Cause)
	}
	for _, a := range ce.Attempts {
		want := map[string]retrypolicy.Cause{"a": retrypolicy.Timeout, "b": retrypolicy.Connection}[a.Endpoint]
		if a.Cause != want || a.Hedge != (a.Endpoint == "b") {
			t.Fatalf("attempt %+v: want cause %v, a hedge only on b", a, want)
		}
	}
	for _, n := range []string{"a", "b"} {
		if s := readSnapshot(t, e, n); s.Failures != 1 {
			t.Fatalf("%s: %d failures, want 1", n, s.Failures)
		}
	}
	if len(rec.drain()) != 2 {
		t.Fatal("OnAttempt did not see both attempts")
	}
}
