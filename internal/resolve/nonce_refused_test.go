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
// durable-nonce transaction refused by preflight with BlockhashNotFound,
// not forwarded, and not landed before, is not resolved (a resolution
// would have nothing to find and no rule to end it): the refusal comes
// back at once, saying to Resolve before signing again.
//   - "not yet finalized": signed on a nonce set 2 slots ago; the default
//     preflight bank (finalized) still holds the one before.
//   - "never held": signed on a nonce the account never held (a stale or
//     mistyped one).
//
// (Found by the second review: the first mend resolved every such
// refusal, and with context.Background() SendAndConfirm never returned.)
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

// TestFanOutResolvesALandedNonceTransactionsRefusalAsOneSendDoes: a
// landed nonce transaction sent again with preflight, endpoint a refusing
// with -32005 (node behind), b and c with BlockhashNotFound: landed at
// FanOut 1 and 2 alike, every joined copy's refusal looked at. (Found by
// the second review: FanOut 2 matched the first copy's error only.)
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
