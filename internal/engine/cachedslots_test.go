package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/transport"
)

// getLargestAccounts' context.slot is its node's cache's (agave keeps one
// answer per filter, whatever the commitment, for up to two hours): it is
// held to the same method's earlier answers only, and never moves the
// pool's idea of where the endpoint is (plans/009-consistency.md).

// largestAt answers getLargestAccounts at cache slot slot.
func largestAt(slot string) string {
	return rpcResult(`{"context":{"slot":` + slot + `},"value":[]}`)
}

// balanceAnswer answers getBalance at slot.
func balanceAnswer(slot string) string {
	return rpcResult(`{"context":{"slot":` + slot + `},"value":1}`)
}

func largest(ctx context.Context, c *engine.Engine) (uint64, error) {
	out, err := rpc.NewWithCustomRPCClient(c).GetLargestAccounts(ctx, rpc.CommitmentProcessed, "")
	if err != nil {
		return 0, err
	}
	return out.Context.Slot, nil
}

func balance(ctx context.Context, c *engine.Engine) (uint64, error) {
	out, err := rpc.NewWithCustomRPCClient(c).GetBalance(ctx, somePubkey, rpc.CommitmentProcessed)
	if err != nil {
		return 0, err
	}
	return out.Context.Slot, nil
}

// TestCachedSlotIsHeldToItsOwnMethod: after a balance at 2000, a cache
// filled at 1000 is the method's answer (it says how old it is); after
// that, a cache filled at 900 is back in time, and refused.
func TestCachedSlotIsHeldToItsOwnMethod(t *testing.T) {
	a := newScripted(t, func(method string, n int) string {
		switch {
		case method == "getBalance":
			return balanceAnswer("2000")
		case n == 1:
			return largestAt("1000")
		}
		return largestAt("900")
	})
	c := newClient(t, scriptedPool(t, a), conf{})
	defer c.Close()
	ctx := guardCtx(t)
	if s, err := balance(ctx, c); err != nil || s != 2000 {
		t.Fatalf("balance: %d, %v", s, err)
	}
	if s, err := largest(ctx, c); err != nil || s != 1000 {
		t.Fatalf("first getLargestAccounts: %d, %v; want the cache's 1000", s, err)
	}
	s, err := largest(ctx, c)
	var se *transport.StaleError
	if !errors.As(err, &se) || se.Slot != 900 || se.Floor != 1000 {
		t.Fatalf("second getLargestAccounts: %d, %v; want a *StaleError at 900 below 1000", s, err)
	}
}

// TestCachedSlotMovesNoEndpoint: a and b agree at 2000; a's cache,
// filled at 1000, must not mark a as 1000 slots behind.
func TestCachedSlotMovesNoEndpoint(t *testing.T) {
	a := newScripted(t, func(method string, _ int) string {
		if method == "getLargestAccounts" {
			return largestAt("1000")
		}
		return balanceAnswer("2000")
	})
	b := newScripted(t, func(method string, _ int) string {
		if method == "getLargestAccounts" {
			return largestAt("2000")
		}
		return balanceAnswer("2000")
	})
	p := scriptedPool(t, a, b)
	c := newClient(t, p, conf{})
	defer c.Close()
	ctx := guardCtx(t)
	if _, err := balance(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := balance(engine.WithAvoid(ctx, "a"), c); err != nil {
		t.Fatal(err)
	}
	if s, err := largest(ctx, c); err != nil || s != 1000 {
		t.Fatalf("getLargestAccounts: %d, %v", s, err)
	}
	if s := snapshotByName(t, p, "a"); s.Slot != 2000 || s.SlotLag != 0 || s.SlotStanding == endpoint.Lagging {
		t.Fatalf("a's snapshot after its cache's answer: slot %d, lag %d, %v", s.Slot, s.SlotLag, s.SlotStanding)
	}
}

// TestCachedSlotAheadOfEveryBankIsAnOutlier: no cache can be filled past
// what the endpoints' processed banks agree on (by more than any honest
// node could be ahead).
func TestCachedSlotAheadOfEveryBankIsAnOutlier(t *testing.T) {
	a := newScripted(t, func(method string, _ int) string {
		if method == "getLargestAccounts" {
			return largestAt("1000000000000")
		}
		return balanceAnswer("2000")
	})
	b := newScripted(t, func(string, int) string { return balanceAnswer("2000") })
	c := newClient(t, scriptedPool(t, a, b), conf{Retry: noRetries})
	defer c.Close()
	ctx := guardCtx(t)
	if _, err := balance(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := balance(engine.WithAvoid(ctx, "a"), c); err != nil {
		t.Fatal(err)
	}
	_, err := largest(engine.WithAvoid(ctx, "b"), c)
	var oe *transport.OutlierError
	if !errors.As(err, &oe) || oe.Slot != 1000000000000 {
		t.Fatalf("err = %v, want an *OutlierError", err)
	}
}
