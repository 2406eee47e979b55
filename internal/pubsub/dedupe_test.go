package pubsub_test

import (
	"testing"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/ws"

	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/pubsub"
)

// TestAccountRedundantDedupeOrder: an account held on two endpoints, one
// sending every notification twice and out of order, the other 5 slots
// late (within MaxSlotLag, so it keeps its leg), is delivered each state
// once, in context-slot order, never an older state after a newer one.
func TestAccountRedundantDedupeOrder(t *testing.T) {
	e := newEnv(t, []member{
		{name: "a", ps: fixtures.PubSubOptions{Faults: fixtures.PubSubFaults{Lag: 5}}},
		{name: "b", ps: fixtures.PubSubOptions{Faults: fixtures.PubSubFaults{Duplicate: true, Reorder: true}}},
		{name: "c", tier: 1},
	}, redundancy(2))
	acct := key(7)
	sub, err := e.eng.AccountSubscribe(ctxT(t), acct, pubsub.AccountOptions{Commitment: rpc.CommitmentProcessed})
	if err != nil {
		t.Fatal(err)
	}
	e.settle()
	if h := holders(e); len(h) != 2 || h[0] != "a" || h[1] != "b" {
		t.Fatalf("held on %v, want [a b]", h)
	}
	const changes = 30
	var got []pubsub.Notification[*ws.AccountResult]
	for i := range changes + 12 {
		if i < changes {
			setLamports(t, e, acct, uint64(i+1))
		}
		e.steps(1)
		got = append(got, drain(t, sub)...) // a reader keeping up: nothing conflated
	}
	var lastSlot, lastLamports uint64
	for i, n := range got {
		l := n.Value.Value.Lamports
		if n.Slot < lastSlot || n.Value.Context.Slot < lastSlot {
			t.Errorf("delivery %d: context slot %d after %d", i, n.Slot, lastSlot)
		}
		if l <= lastLamports {
			t.Errorf("delivery %d: %d lamports after %d (duplicate or older state)", i, l, lastLamports)
		}
		lastSlot, lastLamports = n.Slot, l
	}
	if len(got) != changes || lastLamports != changes {
		t.Errorf("%d deliveries, last %d lamports; want %d, each change once", len(got), lastLamports, changes)
	}
	snap := e.eng.Snapshot()
	t.Logf("%d deliveries of %d changes; duplicates %d, stale %d", len(got), changes, snap.Duplicates, snap.Stale)
	if snap.Duplicates == 0 || snap.Stale == 0 {
		t.Errorf("duplicates %d, stale %d: the faults were not exercised", snap.Duplicates, snap.Stale)
	}
	if err := sub.Err(); err != nil {
		t.Errorf("Err() = %v", err)
	}
}
