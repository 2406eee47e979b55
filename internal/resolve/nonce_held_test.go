package resolve_test

import (
	"context"
	"math"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/resolve"
)

// TestDurableNonceFailedOnChain: a nonce transaction failing on chain, at
// finalized commitment, with a fan-out of 2, rebroadcasts and lagging
// readers: failed, with its error (the first review's check, held).
func TestDurableNonceFailedOnChain(t *testing.T) {
	ch := newChain(t, node{name: "a"}, node{name: "b", lag: 5}, node{name: "c", lag: 20})
	nonce := solana.Hash{0x81}
	ch.putNonce(81, nonce)
	tx := ch.nonceTx(81, 1, nonce)
	ch.ledger.Fail(tx.Signatures[0].String(), fixtures.Failure{Custom: 3, PassPreflight: true})
	o := skip
	o.Commitment = rpc.CommitmentFinalized
	o.FanOut = 2
	r, err := ch.drive(&o, 80, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch.tc, tx, 0, o)
	})
	if err != nil || r.Status != confirm.Failed {
		t.Fatalf("%v %+v", err, r)
	}
}

// TestDurableNonceAccountClosed: the nonce account is closed while the
// dropped transaction is resolved: expired only once two readers saw it
// held and then gone, as the ledger says (the first review's check, held).
func TestDurableNonceAccountClosed(t *testing.T) {
	ch := newChain(t, node{name: "a"}, node{name: "b", lag: 7}, node{name: "c", lag: 15})
	nonce := solana.Hash{0x82}
	acct := ch.putNonce(82, nonce)
	tx := ch.nonceTx(82, 1, nonce)
	sig := tx.Signatures[0].String()
	ch.ledger.Drop(sig, 4)
	o := skip
	o.Rebroadcast = slotsOf(3)
	o.OnPoll = func(r confirm.Result) {
		if r.Polls == 3 {
			ch.ledger.Drop(sig, math.MaxInt)
			if _, _, err := ch.ledger.Apply(fixtures.Change{Accounts: map[string]*fixtures.AccountState{acct.String(): nil}}); err != nil {
				t.Error(err)
			}
		}
	}
	r, err := ch.drive(&o, 120, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch.tc, tx, 0, o)
	})
	truth := ch.ledger.Tx(sig)
	if err != nil || r.Status != confirm.Expired || !truth.Expired {
		t.Fatalf("%v %+v %+v", err, r, truth)
	}
	_ = fixturedata.FinalizedDepth
	t.Logf("polls %d rebroadcasts %d: %s", r.Polls, r.Rebroadcasts, r.Reason)
}

// contrast: the blockhash transaction's resend is resolved (AlreadyProcessed).
func TestResendOfALandedBlockhashTransactionIsResolved(t *testing.T) {
	ch := newChain(t, node{name: "a"}, node{name: "b"})
	tx, lvbh := ch.tx(77, 0)
	if _, err := sendVia(ch, "a", tx); err != nil {
		t.Fatal(err)
	}
	ch.clock.Advance(slotsOf(fixturedata.DefaultLandAfter + fixturedata.ConfirmedDepth + 1))
	o := confirm.Options{PreflightCommitment: rpc.CommitmentConfirmed}
	r, err := ch.drive(&o, 20, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch.tc, tx, lvbh, o)
	})
	if err != nil || r.Status != confirm.Landed {
		t.Fatalf("%v %v", err, r.Status)
	}
}
