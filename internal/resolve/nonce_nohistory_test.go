package resolve_test

import (
	"context"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/fixturespec"
	"github.com/solroute/solroute/internal/resolve"
)

// TestANoHistoryPoolResolvesARecentLanding: neither endpoint keeps
// history (-32011 to a history search: self-hosted nodes without
// --enable-rpc-transaction-history). The transaction landed and finalized
// 33 slots ago, well inside both status caches; sent again with the docs'
// options it is refused BlockhashNotFound. landedBefore's only read searches history,
// fails on both, and its error is dropped: SendAndConfirm returns the
// refusal saying "no endpoint knows the signature, history searched",
// although none could search and a plain read would have found it.
func TestANoHistoryPoolResolvesARecentLanding(t *testing.T) {
	clock := clockwork.NewFakeClockAt(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ledger := fixtures.NewLedger()
	var members []fixtures.Member
	for _, name := range []string{"a", "b"} {
		l := endpoint.Limits{RequestTimeout: 2 * time.Second}
		members = append(members, fixtures.Member{Name: name, Read: &l, Send: &l,
			Options: fixtures.Options{Clock: clock, Ledger: ledger, Slots: &fixtures.SlotOptions{Start: 1000}, Script: noHistory}})
	}
	c := fixtures.NewCluster(members)
	ch := chainOver(t, clock, ledger, c, fixturespec.Specs(c))
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
