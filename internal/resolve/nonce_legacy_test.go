package resolve_test

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/resolve"
)

// TestALegacyNonceIsNotCalledHeld: the nonce account is of the legacy
// version (u32 0), which agave and the kit's ledger never let a
// transaction use: it can never land, and Ledger.Tx says expired. No
// witness calls it held ("it may still land"); the reason names the
// legacy account. (Found by the second review.)
func TestALegacyNonceIsNotCalledHeld(t *testing.T) {
	ch := newChain(t, node{name: "a"}, node{name: "b"})
	nonce := solana.Hash{0x73}
	acct := fixturedata.NonceAccount(73)
	data := fixturedata.NonceAccountData(73, nonce)
	binary.LittleEndian.PutUint32(data[0:4], 0) // Versions::Legacy
	if _, _, err := ch.ledger.Apply(fixtures.Change{Accounts: map[string]*fixtures.AccountState{
		acct.String(): {Lamports: 1_447_680, Data: data}}}); err != nil {
		t.Fatal(err)
	}
	ch.clock.Advance(slotsOf(fixturedata.DefaultLandAfter + fixturedata.FinalizedDepth + 1))
	tx := ch.nonceTx(73, 1, nonce)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := skip
	o.OnPoll = func(r confirm.Result) {
		if r.Polls == 100 {
			cancel()
		}
	}
	r, err := ch.drive(&o, 150, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(ctx, ch.tc, tx, 0, o)
	})
	if err != nil {
		t.Fatal(err)
	}
	truth := ch.ledger.Tx(tx.Signatures[0].String())
	if strings.Contains(r.Reason, "it may still land") || !strings.Contains(r.Reason, "legacy nonce account") || r.Status != confirm.Unknown {
		t.Fatalf("%s after %d polls, reason %q; the ledger: landed %v, expired %v", r.Status, r.Polls, r.Reason, truth.Landed, truth.Expired)
	}
}
