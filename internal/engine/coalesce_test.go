package engine_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// blockhashParams are the params of every getLatestBlockhash here.
func blockhashParams() []any { return []any{rpc.M{"commitment": "confirmed"}} }

// latestBlockhash calls getLatestBlockhash under ctx into a value of its own.
func latestBlockhash(ctx context.Context, c *engine.Engine) (*rpc.GetLatestBlockhashResult, error) {
	var out *rpc.GetLatestBlockhashResult
	err := c.CallForInto(ctx, &out, "getLatestBlockhash", blockhashParams())
	return out, err
}

// TestCoalesceHundredIdenticalReadsOneRequest: issue 25's target. 100
// concurrent identical getLatestBlockhash calls, half through CallForInto,
// half through solana-go's client over the engine, the server holding its
// answer until the other 99 joined: one upstream request, and every caller
// has the answer in a value of its own.
func TestCoalesceHundredIdenticalReadsOneRequest(t *testing.T) {
	h := newHoldServer(t, 4242)
	e := newCoalesceEnv(t, h, transport.DefaultSettings(), engine.Options{})
	ctx := context.Background()
	const n = 100
	outs := make([]*rpc.GetLatestBlockhashResult, n)
	errs := make([]error, n)
	sg := rpc.NewWithCustomRPCClient(e.client) // solana-go's calls take the same path
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if i%2 == 0 {
				outs[i], errs[i] = latestBlockhash(ctx, e.client)
			} else {
				outs[i], errs[i] = sg.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
			}
		})
	}
	h.waitArrivals(t, 1)
	e.joins.wait(t, n-1)
	h.open()
	wg.Wait()
	for i := range n {
		if errs[i] != nil || outs[i] == nil || outs[i].Context.Slot != 4242 || outs[i].Value.LastValidBlockHeight != 4392 {
			t.Fatalf("caller %d: %+v, %v", i, outs[i], errs[i])
		}
		for j := range i {
			if outs[i] == outs[j] || outs[i].Value == outs[j].Value {
				t.Fatalf("callers %d and %d share a decoded value", i, j)
			}
		}
	}
	if got := h.count("getLatestBlockhash"); got != 1 {
		t.Fatalf("%d upstream requests for %d identical calls, want 1", got, n)
	}
}

// TestCoalesceDistinctParamsShareNothing: reads of different accounts, or
// at another commitment, in flight together, each go upstream (the server
// answers none until all have arrived).
func TestCoalesceDistinctParamsShareNothing(t *testing.T) {
	h := newHoldServer(t)
	e := newCoalesceEnv(t, h, transport.DefaultSettings(), engine.Options{})
	ctx := context.Background()
	calls := [][]any{
		{solana.MustPublicKeyFromBase58("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"), rpc.M{"commitment": "confirmed"}},
		{solana.MustPublicKeyFromBase58("SysvarC1ock11111111111111111111111111111111"), rpc.M{"commitment": "confirmed"}},
		{solana.MustPublicKeyFromBase58("SysvarC1ock11111111111111111111111111111111"), rpc.M{"commitment": "processed"}},
		{solana.MustPublicKeyFromBase58("SysvarC1ock11111111111111111111111111111111")},
	}
	var wg sync.WaitGroup
	errs := make([]error, len(calls))
	for i, params := range calls {
		wg.Go(func() {
			var out *rpc.GetAccountInfoResult
			errs[i] = e.client.CallForInto(ctx, &out, "getAccountInfo", params)
		})
	}
	h.waitArrivals(t, len(calls))
	h.open()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if got := h.count("getAccountInfo"); got != len(calls) {
		t.Fatalf("%d requests for %d distinct reads", got, len(calls))
	}
}

// TestCoalesceNeverSends: identical sends from distinct callers are
// distinct calls, each delivered (the server answers none until all 20
// arrived); and a send, an undeclared method or a read that may not be
// resent cannot be listed.
func TestCoalesceNeverSends(t *testing.T) {
	h := newHoldServer(t)
	e := newCoalesceEnv(t, h, transport.DefaultSettings(), engine.Options{})
	params, _ := signedTx(t, 7)
	const n = 20
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { errs[i] = e.client.CallForInto(context.Background(), new(string), "sendTransaction", params) })
	}
	h.waitArrivals(t, n)
	h.open()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
	}
	if got := h.count("sendTransaction"); got != n {
		t.Fatalf("%d deliveries of %d identical sends", got, n)
	}
	for _, list := range [][]string{{"getSlot", "sendTransaction"}, {"requestAirdrop"}, {"getFoo"}} {
		s := transport.DefaultSettings()
		s.Coalesce = list
		_, err := engine.New(e.client.Pool(), s, engine.Options{})
		if err == nil || !strings.Contains(err.Error(), `"`+list[len(list)-1]+`"`) {
			t.Fatalf("coalesce %v: err %v, want it refused by name", list, err)
		}
	}
}

// TestCoalesceCanceledLeader: the caller whose call went upstream cancels;
// its followers do not fail for it: one of them asks again, and all get
// that answer.
func TestCoalesceCanceledLeader(t *testing.T) {
	h := newHoldServer(t)
	e := newCoalesceEnv(t, h, transport.DefaultSettings(), engine.Options{})
	lctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	leader := async(func() error { _, err := latestBlockhash(lctx, e.client); return err })
	h.waitArrivals(t, 1)
	const n = 5
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { _, errs[i] = latestBlockhash(context.Background(), e.client) })
	}
	e.joins.wait(t, n)
	cancel()
	if err := wait(t, leader); !errors.Is(err, context.Canceled) {
		t.Fatalf("leader: %v, want context.Canceled", err)
	}
	h.waitArrivals(t, 1) // a follower asks again
	e.joins.wait(t, n-1) // the others join it
	h.open()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("follower %d failed with its leader: %v", i, err)
		}
	}
	if got := h.count("getLatestBlockhash"); got != 2 {
		t.Fatalf("%d requests, want the leader's and one more", got)
	}
}

// TestCoalesceFollowerDeadline: a follower's own deadline ends its wait,
// on the pool's clock, with a Timeout that matches pool.ErrDeadline and
// context.DeadlineExceeded; the leader and the other follower still get
// the answer.
func TestCoalesceFollowerDeadline(t *testing.T) {
	h := newHoldServer(t)
	e := newCoalesceEnv(t, h, transport.DefaultSettings(), engine.Options{})
	ctx := context.Background()
	leader := async(func() error { _, err := latestBlockhash(ctx, e.client); return err })
	h.waitArrivals(t, 1)
	short := deadlineCtx{Context: ctx, deadline: e.clock.Now().Add(2 * time.Second)}
	timed := async(func() error { _, err := latestBlockhash(short, e.client); return err })
	other := async(func() error { _, err := latestBlockhash(ctx, e.client); return err })
	e.joins.wait(t, 2) // both wait, their deadlines' timers armed
	e.clock.Advance(2 * time.Second)
	err := wait(t, timed)
	ce := callErr(t, err)
	if ce.Cause != retrypolicy.Timeout || !errors.Is(err, admission.ErrDeadline) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("follower past its deadline: %v (cause %v)", err, ce.Cause)
	}
	select {
	case err := <-leader:
		t.Fatalf("the leader ended with its follower: %v", err)
	case err := <-other:
		t.Fatalf("the other follower ended with it: %v", err)
	default:
	}
	h.open()
	if err := wait(t, leader); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, other); err != nil {
		t.Fatal(err)
	}
}

// TestCoalesceFloorAboveSharedAnswer: a follower whose floor (monotonic
// reads) is above the shared answer's slot does not take it: it asks on
// its own, with its floor, and gets an answer at or above it.
func TestCoalesceFloorAboveSharedAnswer(t *testing.T) {
	h := newHoldServer(t, 2000, 1000, 2000)
	e := newCoalesceEnv(t, h, transport.DefaultSettings(), engine.Options{})
	ctx := context.Background()
	h.let(1)
	if out, err := latestBlockhash(ctx, e.client); err != nil || out.Context.Slot != 2000 {
		t.Fatalf("%+v, %v", out, err) // the client's mark is now 2000
	}
	h.waitArrivals(t, 1)
	// A leader held to no floor: its answer, at 1000, is below the mark.
	leader := async(func() error {
		out, err := latestBlockhash(engine.WithMonotonicReads(ctx, false), e.client)
		if err == nil && out.Context.Slot != 1000 {
			t.Errorf("leader: slot %d", out.Context.Slot)
		}
		return err
	})
	h.waitArrivals(t, 1)
	var got *rpc.GetLatestBlockhashResult
	follower := async(func() error { var err error; got, err = latestBlockhash(ctx, e.client); return err })
	e.joins.wait(t, 1)
	h.open()
	if err := wait(t, leader); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, follower); err != nil || got.Context.Slot != 2000 {
		t.Fatalf("follower: %+v, %v: want its own answer at its floor, 2000", got, err)
	}
	if own := h.waitArrivals(t, 1)[0]; !strings.Contains(string(own.Params), `"minContextSlot":2000`) {
		t.Fatalf("the follower's own request %s: want its floor", own.Params)
	}
}

// TestCoalesceAskingAgainKeepsTheDeadline: a follower whose leader gave up
// late in its budget asks again itself, still bounded by the deadline it
// joined with, not by a new budget from then (the soak's lateness check
// caught calls returning up to a budget late).
func TestCoalesceAskingAgainKeepsTheDeadline(t *testing.T) {
	h := newHoldServer(t)
	e := newCoalesceEnv(t, h, transport.DefaultSettings(), engine.Options{})
	lctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	leader := async(func() error { _, err := latestBlockhash(lctx, e.client); return err })
	h.waitArrivals(t, 1)
	follower := async(func() error { _, err := latestBlockhash(context.Background(), e.client); return err })
	e.joins.wait(t, 1)
	e.clock.Advance(9 * time.Second) // of the 10 s budget both joined with
	cancel()
	if err := wait(t, leader); !errors.Is(err, context.Canceled) {
		t.Fatalf("leader: %v", err)
	}
	h.waitArrivals(t, 1) // the follower asks again
	e.clock.Advance(time.Second)
	err := wait(t, follower)
	if ce := callErr(t, err); ce.Cause != retrypolicy.Timeout {
		t.Fatalf("follower at its deadline: %v (cause %v), want a Timeout", err, ce.Cause)
	}
}
