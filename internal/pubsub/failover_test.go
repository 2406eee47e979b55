package pubsub_test

import (
	"slices"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/ws"

	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/pubsub"
)

// TestOneLegSurvivesEachFault: with one leg only (Redundancy 1, so every
// fault matters), the endpoint holding an account subscription is closed,
// made to error (its sockets cut, its upgrades answered 503, its
// subscribes refused), stalled, then lagged: each time the subscription
// moves to the other endpoint, delivers the next change, and never ends.
func TestOneLegSurvivesEachFault(t *testing.T) {
	e := newEnv(t, twoMembers(), redundancy(1))
	acct := key(3)
	sub, err := e.eng.AccountSubscribe(ctxT(t), acct, pubsub.AccountOptions{Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatal(err)
	}
	refuseAll := &fixtures.PubSubRefusal{Code: -32603, Message: "Internal error"}
	faults := []struct {
		name  string
		apply func(p *fixtures.PubSub)
	}{
		{"close", func(p *fixtures.PubSub) { p.Drop() }},
		{"error", func(p *fixtures.PubSub) {
			p.SetFaults(fixtures.PubSubFaults{UpgradeStatus: 503, Refuse: refuseAll})
			p.Drop()
		}},
		{"stall", func(p *fixtures.PubSub) { p.SetFaults(fixtures.PubSubFaults{Stall: true}) }},
		{"lag", func(p *fixtures.PubSub) { p.SetFaults(fixtures.PubSubFaults{Lag: 40}) }},
	}
	lamports := uint64(0)
	for _, f := range faults {
		before := holders(e)
		if len(before) != 1 {
			t.Fatalf("%s: held on %v, want one endpoint", f.name, before)
		}
		f.apply(e.ps[before[0]])
		e.steps(8) // detection (a stall: 2.5 slots; a lag: 16 slots behind) and the move
		lamports++
		setLamports(t, e, acct, lamports)
		e.steps(6)
		got := drain(t, sub)
		if i := slices.IndexFunc(got, func(n pubsub.Notification[*ws.AccountResult]) bool { return n.Value.Value.Lamports == lamports }); i < 0 {
			t.Errorf("%s of %s: change to %d lamports not delivered (%d deliveries)", f.name, before[0], lamports, len(got))
		}
		if after := holders(e); len(after) != 1 || after[0] == before[0] {
			t.Errorf("%s of %s: held on %v after the fault", f.name, before[0], after)
		}
		if err := sub.Err(); err != nil {
			t.Fatalf("%s: the subscription ended: %v", f.name, err)
		}
		e.ps[before[0]].SetFaults(fixtures.PubSubFaults{})
		e.steps(30) // the faulty endpoint recovers (its backoff, its lag)
	}
	if snap := e.eng.Snapshot(); snap.Failovers < uint64(len(faults)) {
		t.Errorf("%d failovers, want at least %d", snap.Failovers, len(faults))
	}
}
