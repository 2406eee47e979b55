package resolve_test

import (
	"context"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/resolve"
)

// TestAnOldLandedNonceTransactionIsFoundWithoutARefusal: a durable-nonce
// transaction landed longer ago than the status caches hold
// (StatusCacheSlots), and its nonce moved on before the resolution
// began, so no witness ever sees it held. Each way in still finds the
// landing: the witnesses read the status with history (foundAnyway):
//   - "fan-out mix": FanOut 2, a's copy ambiguous (reset after read), b's
//     BlockhashNotFound (the ambiguous copy is resolved);
//   - "ambiguous send": one send, reset after read;
//   - "Resolve": what the docs say to run after either.
//
// (Found by the third review: each stayed unknown for good.)
func TestAnOldLandedNonceTransactionIsFoundWithoutARefusal(t *testing.T) {
	reset := fixtures.Fault{Kind: fixtures.ResetAfterRead}
	for _, tc := range []struct {
		name   string
		nodes  []node
		fanOut int
		send   bool
	}{
		{"control: both refuse, fan-out 2", []node{{name: "a"}, {name: "b"}}, 2, true},
		{"fan-out mix", []node{{name: "a", fault: reset}, {name: "b"}}, 2, true},
		{"ambiguous send", []node{{name: "a", fault: reset}, {name: "b", fault: reset}}, 1, true},
		{"Resolve", []node{{name: "a"}, {name: "b"}}, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := newChain(t, tc.nodes...)
			nonce := solana.Hash{0x91}
			acct := ch.putNonce(91, nonce)
			tx := ch.nonceTx(91, 1, nonce)
			_, _ = sendVia(ch, "b", tx) // b may reset after acting: the ledger has it
			ch.clock.Advance(slotsOf(fixturedata.DefaultLandAfter + fixturedata.StatusCacheSlots + fixturedata.FinalizedDepth))
			truth := ch.ledger.Tx(tx.Signatures[0].String())
			if !truth.Landed {
				t.Fatalf("setup: %+v", truth)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			o := confirm.Options{FanOut: tc.fanOut}
			o.OnPoll = func(r confirm.Result) {
				if r.Polls == 150 {
					cancel()
				}
			}
			r, err := ch.drive(&o, 200, func(o confirm.Options) (confirm.Result, error) {
				if !tc.send {
					o.NonceAccount, o.Nonce = acct, nonce
					return resolve.Resolve(ctx, ch.tc, tx.Signatures[0], 0, o)
				}
				return resolve.SendAndConfirm(ctx, ch.tc, tx, 0, o)
			})
			if err != nil || r.Status != confirm.Landed || r.Slot != truth.Slot {
				t.Fatalf("%s after %d polls, error %v, send error %v; reason %q; truth: landed in slot %d",
					r.Status, r.Polls, err, r.SendErr, r.Reason, truth.Slot)
			}
		})
	}
}
