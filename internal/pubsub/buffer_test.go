package pubsub_test

import (
	"testing"

	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solroute/solroute/internal/pubsub"
)

// TestSlowConsumerConflates: a reader that does not read never blocks the
// socket: an account's buffer keeps the latest state only, a slot
// subscription the newest Buffer slots; every drop is counted, and the
// connection is never dropped for reading too slowly.
func TestSlowConsumerConflates(t *testing.T) {
	e := newEnv(t, twoMembers(), func(_ []pubsub.Endpoint, s *pubsub.Settings, _ *pubsub.Options) { s.Buffer = 4 })
	acct := key(11)
	accounts, err := e.eng.AccountSubscribe(ctxT(t), acct, pubsub.AccountOptions{Commitment: rpc.CommitmentProcessed})
	if err != nil {
		t.Fatal(err)
	}
	slots, err := e.eng.SlotSubscribe(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	const changes = 20
	for i := range changes {
		setLamports(t, e, acct, uint64(i+1))
		e.steps(1)
	}
	e.steps(4)
	last := e.cluster.Server("a").Slot("processed")
	got := drain(t, accounts)
	if len(got) != 1 || got[0].Value.Value.Lamports != changes {
		t.Errorf("account: %d buffered, want 1, the latest (%d lamports)", len(got), changes)
	}
	if d := accounts.Dropped(); d != changes-1 {
		t.Errorf("account: %d dropped, want %d", d, changes-1)
	}
	gotSlots := drain(t, slots)
	if len(gotSlots) != 4 || gotSlots[3].Value.Slot != last || gotSlots[0].Value.Slot != last-3 {
		t.Errorf("slots: %d buffered (want the newest 4, to %d): %+v", len(gotSlots), last, gotSlots)
	}
	if d := slots.Dropped(); d != changes+4-4 {
		t.Errorf("slots: %d dropped, want %d", d, changes)
	}
	snap := e.eng.Snapshot()
	if snap.Dropped != accounts.Dropped()+slots.Dropped() {
		t.Errorf("snapshot drops %d, subscriptions' %d+%d", snap.Dropped, accounts.Dropped(), slots.Dropped())
	}
	for name, p := range e.ps {
		if st := p.Stats(); st.SlowDropped != 0 || st.Dropped != 0 {
			t.Errorf("%s dropped a connection: %+v", name, st)
		}
	}
	for _, ep := range snap.Endpoints {
		if ep.ConnsDropped != 0 {
			t.Errorf("%s: %d connections dropped", ep.Name, ep.ConnsDropped)
		}
	}
}
