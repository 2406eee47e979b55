package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/retrypolicy"
)

// TestHedgeWithNoOtherEndpointSpendsNoToken: plan 006, a hedge is
// started only if another endpoint can be admitted at once. With one
// rated endpoint the hedge's permit is asked with
// admission.Pool.TryAcquireElsewhere, which never falls back to the
// avoided endpoint: the endpoint's one request costs it one token and one
// admission. (TryAcquire, which ignores Avoid when nothing else exists,
// admitted a second permit on the same endpoint and released it: every
// read slower than HedgeAfter burnt a second token of the provider's
// quota for a request never sent.)
func TestHedgeWithNoOtherEndpointSpendsNoToken(t *testing.T) {
	l := endpoint.Limits{RequestTimeout: time.Second, RequestsPerSecond: 1, BurstCapacity: 2}
	members := []fixtures.Member{{Name: "a", Tier: 0, Read: &l, Send: &l}}
	e := newEnvOneClock(t, members, conf{HedgeAfter: hedgeAfter, Retry: noRetries})
	slowReadPastHedge(t, e) // the hedge timer: nowhere else to go
	if n := e.server("a").Stats().Calls["getBalance"]; n != 1 {
		t.Fatalf("a got %d requests, want 1", n)
	}
	s := readSnapshot(t, e, "a")
	if s.Admitted != 1 || s.Tokens < 1 {
		t.Fatalf("a admitted %d (tokens now %.2f of 2, 0.1 refilled) for the one request it was sent; want 1 admission, one token spent",
			s.Admitted, s.Tokens)
	}
}

// TestRefusedHedgeSpendsNoPeerToken: the same with two endpoints and a
// spent retry budget: plan 006 starts a hedge only if the budget grants
// it and another endpoint can be admitted at once, and the budget is
// asked first, so a healthy peer gives no token and no admission for a
// hedge the budget refuses. (Admitting the peer first, then asking the
// budget, took both on every slow read of an outage.)
func TestRefusedHedgeSpendsNoPeerToken(t *testing.T) {
	l := endpoint.Limits{RequestTimeout: time.Second, RequestsPerSecond: 1, BurstCapacity: 2}
	members := []fixtures.Member{{Name: "a", Tier: 0, Read: &l, Send: &l}, {Name: "b", Tier: 1, Read: &l, Send: &l}}
	e := newEnvOneClock(t, members, conf{HedgeAfter: hedgeAfter, Retry: func(r *retrypolicy.Settings) {
		r.BudgetMinRetries, r.BudgetBurst = 0, 0 // the budget grants nothing
	}})
	slowReadPastHedge(t, e) // the hedge timer: the budget refuses
	if n := e.server("b").Stats().Calls["getBalance"]; n != 0 {
		t.Fatalf("b got %d requests, want none", n)
	}
	s := readSnapshot(t, e, "b")
	if s.Admitted != 0 || s.Tokens < 2 {
		t.Fatalf("b admitted %d (tokens now %.2f of 2) though it was sent nothing; want 0, its bucket full", s.Admitted, s.Tokens)
	}
}

// TestUnsentHedgeLeavesTheRetryBudgetWhole: the budget is asked before
// the peer, so a hedge that then finds no other endpoint gives its place
// back (retry.Call.Unhedge): the token it took returns to the account,
// which is full again once the call ends.
func TestUnsentHedgeLeavesTheRetryBudgetWhole(t *testing.T) {
	e := newEnvOneClock(t, []fixtures.Member{member("a", 0)}, conf{HedgeAfter: hedgeAfter, Retry: func(r *retrypolicy.Settings) {
		r.BudgetMinRetries, r.BudgetBurst = 0, 1 // one token, no floor
	}})
	slowReadPastHedge(t, e) // the hedge timer: the budget pays, no other endpoint
	if u := e.client.RetryBudget(); u.Tokens != 1 || u.ActiveRetries != 0 || u.ActiveCalls != 0 {
		t.Fatalf("retry budget after the call: %+v, want its one token back and nothing in flight", u)
	}
}

// slowReadPastHedge makes one getBalance that a answers 2 × hedgeAfter
// after it asked, past the hedge timer, and waits for it to succeed: the
// clock moves to the hedge timer once the attempt's timer, the hedge's
// and the server's delay are all set, then to a's answer.
func slowReadPastHedge(t *testing.T, e *env) {
	t.Helper()
	e.server("a").SetScript(fixtures.Always(fixtures.Fault{Delay: 2 * hedgeAfter}))
	done := async(func() error { _, err := getBalance(context.Background(), e.client); return err })
	g := guardCtx(t)
	if err := e.server("a").WaitRequests(g, 1); err != nil {
		t.Fatal(err)
	}
	if err := e.clock.BlockUntilContext(g, 3); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(hedgeAfter) // the hedge timer
	e.clock.Advance(hedgeAfter) // a answers
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
}
