package solroute_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/fixtures"
)

// unknownSignature is a signature no ledger has: i+1 in its first bytes.
func unknownSignature(i int) solana.Signature {
	var s solana.Signature
	binary.BigEndian.PutUint64(s[:8], uint64(i)+1)
	s[63] = 0x5a
	return s
}

// TestBulkStatusesAtTheFloor: 600 signatures, every other one landed
// where the in-step endpoints' processed banks see it and the lagging
// endpoint's (10 slots behind) does not. With monotonic reads off and a
// floor at the in-step endpoints' slot, the lagging endpoint's answers
// (below the floor) are asked again elsewhere: every landed signature has
// its status, every unknown one none, in input order.
func TestBulkStatusesAtTheFloor(t *testing.T) {
	fx := newBulkFixture(t, newFront(0, 0), 0, []uint64{0, 0, 10}, make([]fixtures.Script, 3))
	const n = 600
	sigs := make([]solana.Signature, n)
	for i := range sigs {
		if i%2 == 1 {
			sigs[i] = unknownSignature(i)
			continue
		}
		sig, _, err := fx.ledger.Apply(fixtures.Change{})
		if err != nil {
			t.Fatal(err)
		}
		sigs[i] = solana.MustSignatureFromBase58(sig)
	}
	fx.clock.Advance(3 * 400 * time.Millisecond) // landed at the in-step endpoints' processed banks
	floor := fx.cluster.Server("a").Slot("processed")
	ctx := solroute.WithMonotonicReads(context.Background(), false)
	res, err := fx.client.GetSignatureStatusesBulk(ctx, sigs, solroute.BulkOptions{ChunkSize: 16, MinContextSlot: &floor})
	if err != nil {
		t.Fatal(err)
	}
	if res.Floor != floor || res.HighestSlot != floor {
		t.Errorf("floor %d, highest %d, want %d", res.Floor, res.HighestSlot, floor)
	}
	for i, st := range res.Value {
		if (i%2 == 0) != (st != nil) {
			t.Fatalf("signature %d: status %+v", i, st)
		}
	}
	if fx.cluster.Server("c").Stats().Calls["getSignatureStatuses"] == 0 {
		t.Fatal("the lagging endpoint was never asked: the test proves nothing")
	}
}

// TestBulkTransactionsUnderTheCap: 300 transactions, one request each,
// at most the cap in flight on the servers (the gate holds requests
// until the cap is reached), every one answered, in input order, with no
// floor.
func TestBulkTransactionsUnderTheCap(t *testing.T) {
	f := newFront(16, 0)
	fx := newBulkFixture(t, f, 0, []uint64{0, 0, 0}, make([]fixtures.Script, 3))
	const n = 300
	sigs := make([]solana.Signature, n)
	for i := range sigs {
		sigs[i] = unknownSignature(i)
	}
	res, err := fx.client.GetTransactionsBulk(context.Background(), sigs, solroute.BulkOptions{InFlight: 16})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.peak.Load(); got != 16 {
		t.Errorf("peak in flight %d, want 16", got)
	}
	asked := map[string]int{}
	for _, name := range []string{"a", "b", "c"} {
		for _, r := range fx.cluster.Server(name).Requests() {
			var params []json.RawMessage
			var sig string
			if r.Method == "getTransaction" && json.Unmarshal(r.Params, &params) == nil && json.Unmarshal(params[0], &sig) == nil {
				asked[sig]++
			}
		}
	}
	for i, tx := range res.Value {
		if tx == nil || tx.Transaction == nil {
			t.Fatalf("transaction %d: %+v", i, tx)
		}
		if asked[sigs[i].String()] != 1 {
			t.Fatalf("signature %d asked %d times", i, asked[sigs[i].String()])
		}
	}
	if res.Floor != 0 || res.HighestSlot != 0 {
		t.Errorf("floor %d, highest %d, want none", res.Floor, res.HighestSlot)
	}
}
