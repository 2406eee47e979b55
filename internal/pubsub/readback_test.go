package pubsub_test

import (
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/ws"

	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/pubsub"
)

// TestAccountReadBackAfterSwitch: a change lands while the only endpoint
// holding an account subscription is stalled (its notification is lost
// there) and is visible before the other endpoint takes the subscription
// (so that one never notifies it): only the read back over HTTP after the
// switch can deliver it, and it does, marked ReadBack, at the minimum
// context slot the subscription had reached.
func TestAccountReadBackAfterSwitch(t *testing.T) {
	e := newEnv(t, twoMembers(), redundancy(1))
	acct := key(5)
	sub, err := e.eng.AccountSubscribe(ctxT(t), acct, pubsub.AccountOptions{Commitment: rpc.CommitmentProcessed})
	if err != nil {
		t.Fatal(err)
	}
	setLamports(t, e, acct, 1)
	e.steps(4)
	if got := drain(t, sub); len(got) == 0 || got[len(got)-1].Value.Value.Lamports != 1 {
		t.Fatalf("first change: %+v", got)
	}
	held := holders(e)[0]
	e.ps[held].SetFaults(fixtures.PubSubFaults{Stall: true})
	_, landed := setLamports(t, e, acct, 2)
	readsBefore := e.eng.Snapshot().ReadBacks
	var got []pubsub.Notification[*ws.AccountResult]
	for range 10 {
		e.steps(1)
		got = append(got, drain(t, sub)...)
	}
	if h := holders(e); len(h) != 1 || h[0] == held {
		t.Fatalf("held on %v after %s stalled", h, held)
	}
	if len(got) != 1 || got[0].Value.Value.Lamports != 2 || !got[0].ReadBack || got[0].Slot < landed {
		t.Fatalf("after the switch: %+v, want the change to 2 lamports read back at slot >= %d", got, landed)
	}
	if snap := e.eng.Snapshot(); snap.ReadBacks <= readsBefore || snap.ReadBackDelivered == 0 {
		t.Errorf("reads back %d (before %d), delivered %d", snap.ReadBacks, readsBefore, snap.ReadBackDelivered)
	}
}

// TestSignatureConfirmedBeforeSubscribe: a transaction confirmed before
// signatureSubscribe is registered never notifies (web3.js#1107); the
// engine checks getSignatureStatuses once the subscription is live and
// delivers the status, then ends the subscription with ErrDone.
func TestSignatureConfirmedBeforeSubscribe(t *testing.T) {
	e := newEnv(t, twoMembers(), redundancy(2))
	sigText, _ := setLamports(t, e, key(9), 1)
	e.steps(8) // landed and confirmed
	sig := solana.MustSignatureFromBase58(sigText)
	before := e.reader.n()
	ch := subscribeAsync(func() (*pubsub.Subscription[*ws.SignatureResult], error) {
		return e.eng.SignatureSubscribe(ctxT(t), sig, rpc.CommitmentConfirmed)
	})
	r := <-ch
	if r.err != nil {
		t.Fatal(r.err)
	}
	e.settle()
	n, err := r.v.Next(ctxDone()) // delivered by now, or never: no wait
	if err != nil {
		t.Fatalf("no notification after subscribing: %v", err)
	}
	if !n.ReadBack || n.Value == nil || n.Value.Value.Err != nil {
		t.Fatalf("notification %+v, want the confirmed status read back", n)
	}
	if e.reader.n() == before {
		t.Error("no getSignatureStatuses after subscribing")
	}
	e.steps(4)
	if _, err := r.v.Next(ctxT(t)); !errors.Is(err, pubsub.ErrDone) {
		t.Errorf("after the one notification: %v, want ErrDone", err)
	}
	for _, p := range e.ps {
		if st := p.Stats(); st.Subscribes["signatureSubscribe"] == 0 {
			t.Error("the signature was not subscribed on every leg")
		}
	}
}
