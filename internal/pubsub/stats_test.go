package pubsub_test

import (
	"testing"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/ws"

	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/pubsub"
)

// TestSubscriptionStats: a subscription's Stats count its own stream's
// duplicates and failovers, not the engine's (whose heartbeats make
// duplicates of their own), and what its buffer received. An account held
// on two endpoints, one sending every notification twice, then that one
// cut: each change delivered once, the copies counted, one failover.
func TestSubscriptionStats(t *testing.T) {
	e := newEnv(t, []member{
		{name: "a", ps: fixtures.PubSubOptions{Faults: fixtures.PubSubFaults{Duplicate: true}}},
		{name: "b"},
		{name: "c", tier: 1},
	}, redundancy(2))
	acct := key(3)
	sub, err := e.eng.AccountSubscribe(ctxT(t), acct, pubsubAccountConfirmed())
	if err != nil {
		t.Fatal(err)
	}
	slots, err := e.eng.SlotSubscribe(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	e.settle()
	const changes = 6
	var got []pubsub.Notification[*ws.AccountResult]
	for i := range changes + 40 {
		if i < changes {
			setLamports(t, e, acct, uint64(i+1))
		}
		e.steps(1)
		if i == 2 {
			e.ps["a"].Drop()
		}
		got = append(got, drain(t, sub)...) // a reader keeping up: nothing conflated
	}
	st := sub.Stats()
	snap := e.eng.Snapshot()
	t.Logf("account: %d delivered, %+v; engine: duplicates %d, failovers %d", len(got), st, snap.Duplicates, snap.Failovers)
	if st.Delivered != uint64(len(got)) || len(got) != changes {
		t.Errorf("Stats.Delivered %d, %d read, want %d", st.Delivered, len(got), changes)
	}
	if st.Duplicates == 0 || st.Duplicates >= snap.Duplicates {
		t.Errorf("Stats.Duplicates %d, engine's %d: want the stream's own, above 0 and below the engine's", st.Duplicates, snap.Duplicates)
	}
	if st.Failovers != 1 || st.Dropped != 0 || st.Stale != 0 {
		t.Errorf("Stats %+v: want 1 failover, nothing dropped or stale", st)
	}
	ss := slots.Stats()
	if n := uint64(len(drain(t, slots))); ss.Delivered != n || ss.Failovers < 1 || ss.Duplicates == 0 {
		t.Errorf("slot Stats %+v (%d read): want every slot delivered counted, a heartbeat lost, duplicates from the other heartbeats", ss, n)
	}
}

// pubsubAccountConfirmed reads an account at confirmed.
func pubsubAccountConfirmed() pubsub.AccountOptions {
	return pubsub.AccountOptions{Commitment: rpc.CommitmentConfirmed}
}
