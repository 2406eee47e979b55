package resolve_test

import (
	"context"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/resolve"
)

// TestANoHistoryPoolResolvesARecentLanding: neither endpoint keeps
// history (-32011 to a history search: self-hosted nodes without
// --enable-rpc-transaction-history). The transaction landed and finalized
// 33 slots ago, well inside both status caches; sent again with the docs'
// options it is refused BlockhashNotFound, and the refusal's look-up finds
// it in a status cache: landed. (Found by the third review: the look-up
// searched history only, and returned the refusal.)
func TestANoHistoryPoolResolvesARecentLanding(t *testing.T) {
	ch := newChain(t, node{name: "a", script: noHistory}, node{name: "b", script: noHistory})
	nonce := solana.Hash{0x95}
	ch.putNonce(95, nonce)
	tx := ch.nonceTx(95, 1, nonce)
	if _, err := sendVia(ch, "a", tx); err != nil {
		t.Fatal(err)
	}
	ch.clock.Advance(slotsOf(fixturedata.DefaultLandAfter + fixturedata.FinalizedDepth + 1)) // finalized, well inside the status cache
	o := confirm.Options{}                                                                   // the docs' example: preflight at finalized
	r, err := ch.drive(&o, 20, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch.tc, tx, 0, o)
	})
	truth := ch.ledger.Tx(tx.Signatures[0].String())
	if err != nil || r.Status != confirm.Landed {
		t.Fatalf("%s after %d polls, error %v; the ledger: landed %v in slot %d", r.Status, r.Polls, err, truth.Landed, truth.Slot)
	}
}
