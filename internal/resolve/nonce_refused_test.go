package resolve_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/resolve"
)

// TestANonceTransactionRefusedForItsNonceIsNotResolvedForEver: a
// durable-nonce transaction whose send is refused by preflight with
// BlockhashNotFound was not forwarded. d756f6d resolves that refusal
// instead of returning it; when the transaction did not land before, the
// resolution has nothing to find and no rule that ends it:
//   - "not yet finalized": signed on a nonce set 2 slots ago; the default
//     preflight bank (finalized) still holds the one before. Nothing is in
//     flight, the nonce stays held: Unknown, "it may still land", forever.
//   - "never held": signed on a nonce the account never held (a stale
//     or mistyped one). It can never land; no endpoint ever sees it held,
//     so none vouches: Unknown forever.
//
// Before d756f6d both returned the refusal at once. With a
// context.Background() (the docs' example) SendAndConfirm never returns.
// Here the context ends after 150 polls; the test wants an error (nothing
// was sent) or a verdict before that.
func TestANonceTransactionRefusedForItsNonceIsNotResolvedForEver(t *testing.T) {
	for _, tc := range []struct {
		name  string
		nonce func(ch *chain, acct solana.PublicKey) solana.Hash
	}{
		{"not yet finalized", func(ch *chain, acct solana.PublicKey) solana.Hash {
			if _, err := sendVia(ch, "a", ch.nonceTx(61, 0, solana.Hash{0x61})); err != nil {
				t.Fatal(err)
			}
			ch.clock.Advance(slotsOf(fixturedata.DefaultLandAfter))
			return ch.nonceNow(acct)
		}},
		{"never held", func(*chain, solana.PublicKey) solana.Hash { return solana.Hash{0xee} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := newChain(t, node{name: "a"}, node{name: "b"})
			acct := ch.putNonce(61, solana.Hash{0x61})
			tx := ch.nonceTx(61, 1, tc.nonce(ch, acct))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			o := confirm.Options{} // the docs' durable-nonce example
			o.OnPoll = func(r confirm.Result) {
				if r.Polls == 150 {
					cancel()
				}
			}
			r, err := ch.drive(&o, 200, func(o confirm.Options) (confirm.Result, error) {
				return resolve.SendAndConfirm(ctx, ch.tc, tx, 0, o)
			})
			truth := ch.ledger.Tx(tx.Signatures[0].String())
			if err == nil || !strings.Contains(err.Error(), "Blockhash not found") || !strings.Contains(err.Error(), "Resolve it before signing again") ||
				r.Status != confirm.Unknown || r.Polls != 0 || truth.Forwarded != 0 {
				t.Fatalf("result %s after %d polls, error %v; the ledger: arrivals %d, forwarded %d, landed %v",
					r.Status, r.Polls, err, truth.Arrivals, truth.Forwarded, truth.Landed)
			}
		})
	}
}

// TestFanOutResolvesALandedNonceTransactionsRefusalAsOneSendDoes: the
// landed nonce transaction of TestResendOfALandedNonceTransactionIsResolved,
// sent again with preflight, where endpoint a's preflight refuses with
// -32005 (node behind) and b and c answer BlockhashNotFound. One send:
// the pool moves on from a, b's BlockhashNotFound is resolved: landed.
// FanOut 2: the copies' errors are joined; blockhashNotFound's errors.As
// finds a's RPCError first, not BlockhashNotFound, and SendAndConfirm
// returns the refusal as "nothing sent" for a transaction that landed.
func TestFanOutResolvesALandedNonceTransactionsRefusalAsOneSendDoes(t *testing.T) {
	for _, k := range []int{1, 2} {
		ch := newChain(t, node{name: "a", fault: fixtures.RPC(-32005)}, node{name: "b"}, node{name: "c"})
		nonce := solana.Hash{0x62}
		ch.putNonce(62, nonce)
		tx := ch.nonceTx(62, 1, nonce)
		if _, err := sendVia(ch, "b", tx); err != nil {
			t.Fatal(err)
		}
		ch.clock.Advance(slotsOf(fixturedata.DefaultLandAfter + fixturedata.FinalizedDepth + 1))
		truth := ch.ledger.Tx(tx.Signatures[0].String())
		if !truth.Landed {
			t.Fatalf("setup: %+v", truth)
		}
		o := confirm.Options{FanOut: k}
		r, err := ch.drive(&o, 20, func(o confirm.Options) (confirm.Result, error) {
			return resolve.SendAndConfirm(context.Background(), ch.tc, tx, 0, o)
		})
		if err != nil || r.Status != confirm.Landed {
			t.Errorf("FanOut %d: result %v, error %v; copies %+v; truth: landed in slot %d", k, r.Status, err, r.Copies, truth.Slot)
		}
	}
}
