package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// doubtEnv is endpoints a and b in one tier, a resetting every connection
// after reading the request, and one read that tried a first and failed
// over to b: a is now in doubt.
func doubtEnv(t *testing.T, ps pool.Settings) (*env, *recorder) {
	t.Helper()
	rec := newRecorder()
	e := newEnvWith(t, []fixtures.Member{member("a", 0), member("b", 0)}, conf{OnAttempt: rec.on}, ps, nil)
	e.server("a").SetFault(fixtures.Fault{Kind: fixtures.ResetAfterRead})
	if _, err := getBalance(context.Background(), e.client); err != nil {
		t.Fatal(err)
	}
	as := rec.drain()
	if len(as) != 2 || as[0].Endpoint != "a" || as[0].Dispatch != retrypolicy.MaybeDispatched || as[1].Endpoint != "b" {
		t.Fatalf("read attempts %+v, want a (may have been dispatched) then b", as)
	}
	return e, rec
}

func TestSendsGoElsewhereWhileAnEndpointIsInDoubt(t *testing.T) {
	e, rec := doubtEnv(t, pool.DefaultSettings())
	// The round-robin would give a every other send; a reset there would
	// leave it ambiguous. While a is in doubt, every send goes to b.
	for i := range 6 {
		params, sig := signedTx(t, uint64(300+i))
		var got solana.Signature
		if err := e.client.CallForInto(context.Background(), &got, "sendTransaction", params); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		if got.String() != sig || e.server("b").Deliveries(sig) != 1 {
			t.Fatalf("send %d: signature %s, deliveries to b %d", i, got, e.server("b").Deliveries(sig))
		}
	}
	if n := e.server("a").Stats().Calls["sendTransaction"]; n != 0 {
		t.Fatalf("a received %d sends while in doubt", n)
	}
	// Reads are not steered by doubt, but by balancing: a's reset left a
	// latency penalty (plans/008), so they go to b for now too.
	for range 2 {
		if _, err := getBalance(context.Background(), e.client); err != nil {
			t.Fatal(err)
		}
	}
	if as := rec.drain(); hasAttemptOn(as, "a") {
		t.Fatalf("reads tried a while its penalty is fresh: %v", endpoints(as))
	}

	// a recovers; one window after its last doubtful attempt, sends use it
	// again (still in doubt 1 ms before).
	e.server("a").SetFault(fixtures.Fault{})
	e.clock.Advance(pool.DefaultSettings().DoubtWindow - time.Millisecond)
	if n := sendsOnA(t, e, 400, 4); n != 0 {
		t.Fatalf("%d sends reached a 1 ms before its doubt lapsed", n)
	}
	e.clock.Advance(time.Millisecond)
	if n := sendsOnA(t, e, 500, 4); n != 2 {
		t.Fatalf("%d of 4 sends reached a after its doubt lapsed, want 2 (round-robin)", n)
	}
}

func TestDoubtWindowNegativeSendsAsBefore(t *testing.T) {
	// The control: with the preference off, the round-robin hands a send
	// to a, which resets it: ambiguous, not resent.
	off := pool.DefaultSettings()
	off.DoubtWindow = 0
	e, _ := doubtEnv(t, off)
	ambiguous := 0
	for i := range 2 {
		params, sig := signedTx(t, uint64(600+i))
		var got solana.Signature
		err := e.client.CallForInto(context.Background(), &got, "sendTransaction", params)
		if errors.Is(err, engine.ErrAmbiguousDispatch) {
			ambiguous++
			if n := e.server("b").Deliveries(sig); n != 0 {
				t.Fatalf("ambiguous send resent to b (%d)", n)
			}
		}
	}
	if ambiguous != 1 {
		t.Fatalf("%d of 2 sends ambiguous, want 1 (the one the round-robin gave a)", ambiguous)
	}
}

func TestSendUsesEndpointInDoubtAsLastResort(t *testing.T) {
	// b behind (-32005: refused before forwarding) and a in doubt: the
	// send tries b first, then goes to a rather than failing.
	e, rec := doubtEnv(t, pool.DefaultSettings())
	e.server("a").SetFault(fixtures.Fault{})
	e.server("b").SetFault(fixtures.Fault{Kind: fixtures.RPCError, RPCCode: -32005})
	params, sig := signedTx(t, 700)
	var got solana.Signature
	if err := e.client.CallForInto(context.Background(), &got, "sendTransaction", params); err != nil {
		t.Fatal(err)
	}
	as := rec.drain()
	if got := endpoints(as); len(got) != 2 || got[0] != "b" || got[1] != "a" {
		t.Fatalf("send attempts %v, want [b a]", got)
	}
	if as[0].InDoubt || !as[1].InDoubt {
		t.Fatalf("InDoubt %v %v, want false then true: a was taken as a last resort", as[0].InDoubt, as[1].InDoubt)
	}
	if n := e.server("a").Deliveries(sig); n != 1 {
		t.Fatalf("deliveries to a %d, want 1", n)
	}
	if n := e.server("b").Forwarded(sig); n != 0 {
		t.Fatalf("b forwarded %d", n)
	}
}

// hasAttemptOn reports whether any attempt went to endpoint name.
func hasAttemptOn(as []transport.Attempt, name string) bool {
	for _, a := range as {
		if a.Endpoint == name {
			return true
		}
	}
	return false
}

func TestSendWaitsItsPatienceBeforeAnEndpointInDoubt(t *testing.T) {
	rec := newRecorder()
	b := member("b", 0)
	l := *b.Send
	l.MaxConcurrentRequests = 1
	b.Send = &l
	e := newEnv(t, []fixtures.Member{member("a", 0), b}, conf{OnAttempt: rec.on}, nil)
	e.server("a").SetFault(fixtures.Fault{Kind: fixtures.ResetAfterRead})
	if _, err := getBalance(context.Background(), e.client); err != nil {
		t.Fatal(err)
	}
	e.server("a").SetFault(fixtures.Fault{})
	// b never answers (the servers' clock never moves): the first send
	// holds b's only send slot.
	e.server("b").SetFault(fixtures.Fault{Delay: time.Hour})
	params1, _ := signedTx(t, 800)
	first := async(func() error {
		var got solana.Signature
		return e.client.CallForInto(context.Background(), &got, "sendTransaction", params1)
	})
	ctx := guardCtx(t)
	if err := e.server("b").WaitRequests(ctx, 2); err != nil { // the read's retry, then the first send
		t.Fatal(err)
	}
	// The second send finds b full and a in doubt: it waits
	// the default doubt patience for b, then takes a.
	params2, sig2 := signedTx(t, 801)
	second := async(func() error {
		var got solana.Signature
		return e.client.CallForInto(context.Background(), &got, "sendTransaction", params2)
	})
	if err := e.clock.BlockUntilContext(ctx, 2); err != nil { // the first's attempt timer, the second's wait
		t.Fatal(err)
	}
	e.clock.Advance(pool.DefaultSettings().DoubtPatience - time.Millisecond)
	if err := e.clock.BlockUntilContext(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if n := e.server("a").Stats().Calls["sendTransaction"]; n != 0 {
		t.Fatalf("a got %d sends before the patience ran out", n)
	}
	e.clock.Advance(time.Millisecond)
	if err := wait(t, second); err != nil {
		t.Fatal(err)
	}
	if n := e.server("a").Deliveries(sig2); n != 1 {
		t.Fatalf("deliveries to a %d, want 1", n)
	}
	// The first send's attempt times out: ambiguous, as ever.
	e.clock.Advance(time.Second)
	if err := wait(t, first); !errors.Is(err, engine.ErrAmbiguousDispatch) {
		t.Fatalf("first send: %v, want ambiguous", err)
	}
}

// sendsOnA makes n sends and counts those delivered to a.
func sendsOnA(t *testing.T, e *env, seed uint64, n int) (onA int) {
	t.Helper()
	for i := range n {
		params, sig := signedTx(t, seed+uint64(i))
		var got solana.Signature
		if err := e.client.CallForInto(context.Background(), &got, "sendTransaction", params); err != nil {
			t.Fatal(err)
		}
		onA += e.server("a").Deliveries(sig)
	}
	return onA
}

func TestDoubtIgnoresFailuresThatAreNotTheEndpoints(t *testing.T) {
	// Each case fails reads on a (and b) in a way that says nothing of the
	// endpoint; afterwards sends still alternate between a and b.
	for _, tc := range []struct {
		name string
		s    conf
		fail func(t *testing.T, e *env)
	}{{
		name: "caller cancels after writing",
		fail: func(t *testing.T, e *env) {
			e.server("a").SetFault(fixtures.Fault{Kind: fixtures.Hang})
			ctx, cancel := context.WithCancel(context.Background())
			done := async(func() error { _, err := getBalance(ctx, e.client); return err })
			if err := e.server("a").WaitRequests(guardCtx(t), 1); err != nil {
				t.Fatal(err)
			}
			cancel()
			if err := wait(t, done); !errors.Is(err, context.Canceled) {
				t.Fatalf("read: %v, want canceled", err)
			}
		},
	}, {
		name: "answer over our size limit",
		s:    conf{MaxResponseBytes: 4096},
		fail: func(t *testing.T, e *env) {
			// a's answer is too large for us, b's is not.
			e.server("a").SetFault(fixtures.Fault{Kind: fixtures.OversizedBody, Size: 8192})
			if _, err := getBalance(context.Background(), e.client); err != nil {
				t.Fatal(err)
			}
		},
	}, {
		name: "the call's deadline cuts the failover short",
		s:    conf{AttemptTimeout: 600 * time.Millisecond},
		fail: func(t *testing.T, e *env) {
			// a hangs for its own 600 ms (a's fault: in doubt), then b
			// hangs for the 400 ms the call has left (not b's fault).
			for _, n := range []string{"a", "b"} {
				e.server(n).SetFault(fixtures.Fault{Kind: fixtures.Hang})
			}
			done := async(func() error { _, err := getBalance(context.Background(), e.client); return err })
			e.expire(e.server("a"), 1, 600*time.Millisecond)
			e.expire(e.server("b"), 1, 400*time.Millisecond)
			if err := wait(t, done); err == nil {
				t.Fatal("read succeeded")
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 0)}, tc.s, nil)
			tc.fail(t, e)
			for _, n := range []string{"a", "b"} {
				e.server(n).SetFault(fixtures.Fault{})
			}
			onA := sendsOnA(t, e, 900, 4)
			want := 2
			if tc.name == "the call's deadline cuts the failover short" {
				want = 0 // a timed out on its own: a is in doubt, b is not
			}
			if onA != want {
				t.Fatalf("%d of 4 sends reached a, want %d", onA, want)
			}
		})
	}
}

// TestSendAnswered524IsAmbiguousAndPutsInDoubt: a CDN's 524 says the
// origin got the request and timed out. The send is ambiguous, never
// resent, and the endpoint is in doubt for the next sends.
func TestSendAnswered524IsAmbiguousAndPutsInDoubt(t *testing.T) {
	rec := newRecorder()
	e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 1)}, conf{OnAttempt: rec.on}, nil)
	e.server("a").SetFault(fixtures.Status(524, ""))
	params, sig := signedTx(t, 1000)
	var got solana.Signature
	err := e.client.CallForInto(context.Background(), &got, "sendTransaction", params)
	if !errors.Is(err, engine.ErrAmbiguousDispatch) {
		t.Fatalf("error %v, want ambiguous", err)
	}
	if n := e.server("b").Deliveries(sig); n != 0 {
		t.Fatalf("resent to b: %d", n)
	}
	if s := readSnapshot(t, e, "a"); s.DoubtRemaining != pool.DefaultSettings().DoubtWindow {
		t.Fatalf("a in doubt for %v, want %v", s.DoubtRemaining, pool.DefaultSettings().DoubtWindow)
	}
	e.server("a").SetFault(fixtures.Fault{})
	if n := sendsOnA(t, e, 1001, 3); n != 0 {
		t.Fatalf("%d sends reached a while in doubt", n)
	}
	if as := rec.drain(); len(as) == 0 || as[0].HTTPStatus != 524 || as[0].Cause != retrypolicy.TemporaryHTTP {
		t.Fatalf("attempts %+v", as)
	}
}
