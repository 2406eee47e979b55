package solroute_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute"
)

// feeAccount is an account the coalescing tests ask about.
var feeAccount = solana.MustPublicKeyFromBase58("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")

// 100 concurrent callers of one account set at one slot cost one request
// per endpoint: every one joins the fetch in flight (the answers are held
// until all 100 wait), and all get the same estimate.
func TestPriorityFeeHundredCallersOneRequestEach(t *testing.T) {
	ctx := feeWatchdog(t)
	clock, c, cl := heldFeeClient(t)

	const callers = 100
	got := make([]solroute.PriorityFeeEstimate, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// in any order, and a repeated key: the same set
			accounts := []solana.PublicKey{feeAccount, solana.SystemProgramID, feeAccount}
			if i%2 == 1 {
				accounts = []solana.PublicKey{solana.SystemProgramID, feeAccount}
			}
			got[i], errs[i] = c.PriorityFee(ctx, accounts, float64(i))
		}()
	}
	for _, name := range []string{"a", "b"} {
		if err := cl.Server(name).WaitRequests(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	awaitWaiting(t, ctx, c, callers-1)
	clock.Advance(time.Second)
	wg.Wait()
	for i := range callers {
		if errs[i] != nil || got[i].Samples != 150 || !slices.Equal(got[i].Endpoints, []string{"a", "b"}) {
			t.Fatalf("caller %d: %+v, %v", i, got[i], errs[i])
		}
	}
	if got[0].MicroLamports >= got[99].MicroLamports {
		t.Fatalf("p0 %d, p99 %d: each caller's own percentile of the shared union", got[0].MicroLamports, got[99].MicroLamports)
	}
	if n := feeRequests(cl, "a", "b"); !slices.Equal(n, []int{1, 1}) {
		t.Fatalf("%d callers cost %v requests, want one per endpoint", callers, n)
	}
}

// An answer is reused while the cluster's slot has not moved on: without
// a reference slot for one slot time; with one, until it moves, even
// with no time passing.
func TestPriorityFeeNewSlotNewRequest(t *testing.T) {
	clock := clockwork.NewFakeClock()
	a, b := feeMember("a", clock, descendingFees), feeMember("b", clock, descendingFees)
	a.Options.Slots.Lag, b.Options.Slots.Lag = 5, 5
	c, cl := feeClient(t, clock, a, b)
	ask := func(want ...int) {
		t.Helper()
		if _, err := c.PriorityFee(context.Background(), []solana.PublicKey{feeAccount}, 50); err != nil {
			t.Fatal(err)
		}
		if n := feeRequests(cl, "a", "b"); !slices.Equal(n, want) {
			t.Fatalf("requests %v, want %v", n, want)
		}
	}
	ask(1, 1)
	ask(1, 1)
	clock.Advance(feeSlotTime - time.Millisecond)
	ask(1, 1)
	clock.Advance(time.Millisecond) // the next slot
	ask(2, 2)

	// The client learns the cluster's slot from reads: a reference slot.
	for _, name := range []string{"a", "b"} {
		if _, err := c.RPC().GetSlot(solroute.WithEndpoint(context.Background(), name), rpc.CommitmentConfirmed); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(feeSlotTime)
	ask(3, 3)
	ask(3, 3)
	cl.Server("a").SetLag(0) // a catches up 5 slots with no time passing
	if _, err := c.RPC().GetSlot(solroute.WithEndpoint(context.Background(), "a"), rpc.CommitmentConfirmed); err != nil {
		t.Fatal(err)
	}
	ask(4, 4)
}

// A caller's ctx bounds only its own wait: a waiter that gives up leaves
// the fetch running for the others, and when the caller fetching gives
// up, a waiter fetches again rather than inherit its cancellation.
func TestPriorityFeeCallerContextBoundsOnlyItsWait(t *testing.T) {
	ctx := feeWatchdog(t)
	clock, c, cl := heldFeeClient(t)
	call := func(ctx context.Context) <-chan feeResult {
		ch := make(chan feeResult, 1)
		go func() {
			est, err := c.PriorityFee(ctx, nil, 50)
			ch <- feeResult{est, err}
		}()
		return ch
	}
	leaderCtx, cancelLeader := context.WithCancel(ctx)
	defer cancelLeader()
	leader := call(leaderCtx)
	for _, name := range []string{"a", "b"} {
		if err := cl.Server(name).WaitRequests(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	quitterCtx, quit := context.WithCancel(ctx)
	quitter := call(quitterCtx)
	stayer := call(ctx)
	awaitWaiting(t, ctx, c, 2)
	quit()
	if r := recvFee(t, ctx, quitter); !errors.Is(r.err, context.Canceled) {
		t.Fatalf("the waiter that gave up: %+v", r)
	}
	cancelLeader()
	if r := recvFee(t, ctx, leader); r.err == nil {
		t.Fatalf("the cancelled leader answered %+v", r.est)
	}
	for _, name := range []string{"a", "b"} { // the stayer's own fetch
		if err := cl.Server(name).WaitRequests(ctx, 2); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(time.Second)
	if r := recvFee(t, ctx, stayer); r.err != nil || r.est.Samples != 150 {
		t.Fatalf("the waiter that stayed: %+v", r)
	}
	if n := feeRequests(cl, "a", "b"); !slices.Equal(n, []int{2, 2}) {
		t.Fatalf("requests %v, want 2 each (the cancelled fetch and the stayer's)", n)
	}
}

// feeResult is one PriorityFee call's outcome.
type feeResult struct {
	est solroute.PriorityFeeEstimate
	err error
}

// recvFee receives a call's outcome, failing the test when it does not
// come before the watchdog.
func recvFee(t *testing.T, ctx context.Context, ch <-chan feeResult) feeResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-ctx.Done():
		t.Fatal("the call did not return")
		return feeResult{}
	}
}
