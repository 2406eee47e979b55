package resolve_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/resolve"
)

// historySearch reports whether a getSignatureStatuses call's params ask
// for searchTransactionHistory.
func historySearch(params json.RawMessage) bool {
	var items []json.RawMessage
	var cfg struct {
		Search bool `json:"searchTransactionHistory"`
	}
	return json.Unmarshal(params, &items) == nil && len(items) > 1 && json.Unmarshal(items[1], &cfg) == nil && cfg.Search
}

// noHistory answers -32011 to every history-searched getSignatureStatuses:
// a node without --enable-rpc-transaction-history.
func noHistory(c fixtures.Call) fixtures.Fault {
	if c.Method == "getSignatureStatuses" && historySearch(c.Params) {
		return fixtures.RPC(-32011)
	}
	return fixtures.Fault{}
}

// processedOnce answers, to the first n getSignatureStatuses calls that
// search history, a processed status at the answer's context slot: a node
// on a minority fork holding the transaction for a moment (or one lie).
func processedOnce(n int32) func(json.RawMessage) json.RawMessage {
	var calls atomic.Int32
	return func(result json.RawMessage) json.RawMessage {
		var r struct {
			Context struct {
				Slot uint64 `json:"slot"`
			} `json:"context"`
			Value []json.RawMessage `json:"value"`
		}
		if json.Unmarshal(result, &r) != nil || len(r.Value) != 1 || calls.Add(1) > n {
			return nil
		}
		b, _ := json.Marshal(map[string]any{"context": map[string]any{"slot": r.Context.Slot},
			"value": []any{map[string]any{"slot": r.Context.Slot, "confirmations": 0, "err": nil, "status": map[string]any{"Ok": nil},
				"confirmationStatus": "processed"}}})
		return b
	}
}

// TestAProcessedStatusAtTheRefusalIsNoResolutionForEver: the nonce was
// used by another transaction, finalized long ago; the transaction is sent
// with preflight and every node refuses it (BlockhashNotFound): nothing
// was sent, it can never land (the ledger: expired). a and b keep no
// history (-32011, which fails over); c does, and for its first history
// search answers the signature processed (a minority fork, or one lie).
// A processed status is no proof: the refusal is returned at once, with
// the lie as without it, never a resolution no rule could end (no reader
// can see the nonce held). (Found by the third review: the look-up took
// any status for "known", and resolved for ever.)
func TestAProcessedStatusAtTheRefusalIsNoResolutionForEver(t *testing.T) {
	for _, lie := range []int32{0, 1} {
		ch := newChain(t, node{name: "a", script: noHistory}, node{name: "b", script: noHistory},
			node{name: "c", lie: lies{"getSignatureStatuses": processedOnce(lie)}})

		nonce := solana.Hash{0x92}
		ch.putNonce(92, nonce)
		if _, err := sendVia(ch, "a", ch.nonceTx(92, 0, nonce)); err != nil { // another transaction uses the nonce
			t.Fatal(err)
		}
		ch.clock.Advance(slotsOf(fixturedata.DefaultLandAfter + fixturedata.FinalizedDepth + 1))
		tx := ch.nonceTx(92, 1, nonce)
		ctx, cancel := context.WithCancel(context.Background())
		o := confirm.Options{} // the docs' example: preflight on
		o.OnPoll = func(r confirm.Result) {
			if r.Polls == 150 {
				cancel()
			}
		}
		r, err := ch.drive(&o, 200, func(o confirm.Options) (confirm.Result, error) {
			return resolve.SendAndConfirm(ctx, ch.tc, tx, 0, o)
		})
		cancel()
		truth := ch.ledger.Tx(tx.Signatures[0].String())
		refused := err != nil && strings.Contains(err.Error(), "Blockhash not found") && r.Polls == 0
		if !refused && r.Status != confirm.Expired {
			t.Errorf("lie %d: %s after %d polls, error %v; reason %q; the ledger: forwarded %d, landed %v, expired %v",
				lie, r.Status, r.Polls, err, r.Reason, truth.Forwarded, truth.Landed, truth.Expired)
		}
	}
}
