package pubsub_test

import (
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/pubsub"
)

func threeMembers() []member {
	return []member{{name: "a", tier: 0}, {name: "b", tier: 0}, {name: "c", tier: 1}}
}

// TestSlotsOnce: a slot subscription over three endpoints delivers every
// slot once, in order, and the first endpoint to deliver is named.
func TestSlotsOnce(t *testing.T) {
	e := newEnv(t, threeMembers(), func([]pubsub.Endpoint, *pubsub.Settings, *pubsub.Options) {})
	sub, err := e.eng.SlotSubscribe(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	first := e.cluster.Server("a").Slot("processed")
	e.advance(10*fixturedata.DefaultSlotTime, fixturedata.DefaultSlotTime)
	got := drain(t, sub)
	if len(got) != 10 {
		t.Fatalf("%d slots delivered, want 10: %+v", len(got), got)
	}
	for i, n := range got {
		if n.Value.Slot != first+uint64(i)+1 || n.Endpoint == "" {
			t.Fatalf("slot %d: %+v", i, n)
		}
	}
	snap := e.eng.Snapshot()
	if snap.Duplicates != 20 || snap.Delivered != 10 {
		t.Fatalf("snapshot %+v", snap)
	}
	_ = rpc.CommitmentConfirmed
	_ = time.Second
}
