package resolve_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/resolve"
)

// TestARefusalWhileOnlyProcessedSaysSoAndResolveLands: a keeps no
// history (-32011 to a history search), b loses its own after the first
// poll. The transaction landed a moment ago (processed only); sent again
// with preflight at processed it is refused BlockhashNotFound. A status at
// processed is no proof it moved the nonce (a fork, one lie: the second
// and third reviews), so the refusal is returned, saying the endpoint
// shows it only processed, and Resolve then lands it: its polls read the
// status cache, without history. The control sends with skipPreflight:
// landed.
func TestARefusalWhileOnlyProcessedSaysSoAndResolveLands(t *testing.T) {
	for _, skipPreflight := range []bool{true, false} {
		var down atomic.Bool
		losesHistory := func(c fixtures.Call) fixtures.Fault {
			if down.Load() {
				return noHistory(c)
			}
			return fixtures.Fault{}
		}
		ch := newChain(t, node{name: "a", script: noHistory}, node{name: "b", script: losesHistory})
		nonce := solana.Hash{0x93}
		acct := ch.putNonce(93, nonce)
		tx := ch.nonceTx(93, 1, nonce)
		if _, err := sendVia(ch, "a", tx); err != nil {
			t.Fatal(err)
		}
		ch.clock.Advance(slotsOf(fixturedata.DefaultLandAfter)) // landed, processed
		ctx, cancel := context.WithCancel(context.Background())
		o := confirm.Options{PreflightCommitment: rpc.CommitmentProcessed, SkipPreflight: skipPreflight}
		o.OnPoll = func(r confirm.Result) {
			switch r.Polls {
			case 1:
				down.Store(true)
			case 150:
				cancel()
			}
		}
		r, err := ch.drive(&o, 200, func(o confirm.Options) (confirm.Result, error) {
			return resolve.SendAndConfirm(ctx, ch.tc, tx, 0, o)
		})
		cancel()
		truth := ch.ledger.Tx(tx.Signatures[0].String())
		if !skipPreflight {
			if err == nil || !strings.Contains(err.Error(), "only processed") || !strings.Contains(err.Error(), "Resolve it before signing again") {
				t.Fatalf("refused while processed: %s after %d polls, error %v", r.Status, r.Polls, err)
			}
			down.Store(true)
			o := confirm.Options{NonceAccount: acct, Nonce: nonce}
			r, err = ch.drive(&o, 20, func(o confirm.Options) (confirm.Result, error) {
				return resolve.Resolve(context.Background(), ch.tc, tx.Signatures[0], 0, o)
			})
		}
		if err != nil || r.Status != confirm.Landed || r.Slot != truth.Slot {
			t.Errorf("skipPreflight %v: %s after %d polls, error %v, last error %v; the ledger: landed %v in slot %d",
				skipPreflight, r.Status, r.Polls, err, r.LastErr, truth.Landed, truth.Slot)
		}
	}
}
