package resolve_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/resolve"
)

// TestNonceCostNoHistoryReadersEjected: a and b keep no history (-32011 to
// a history search). Resolve of a durable-nonce transaction whose nonce
// another transaction used before (unknown for good, by design), 20
// polls. After poll 10's round, the application makes one history-searched
// getSignatureStatuses through the same pool (as a concurrent
// SendAndConfirm's refusal look-up does): -32011 on each, failed over.
// The test wants neither read endpoint ejected, and reports each read
// role's failures.
func TestNonceCostNoHistoryReadersEjected(t *testing.T) {
	ch := newChainScripted(t, noHistory, nil, node{name: "a"}, node{name: "b"})
	seed := uint64(0xe1)
	nonce := solana.Hash{0xe1}
	acct := ch.putNonce(seed, nonce)
	tx := ch.nonceTx(seed, 1, nonce)
	ch.ledger.Drop(tx.Signatures[0].String(), math.MaxInt)
	if _, err := sendVia(ch, "a", ch.nonceTx(seed, 2, nonce)); err != nil {
		t.Fatal(err)
	}
	ch.clock.Advance(slotsOf(fixturedata.DefaultLandAfter + fixturedata.FinalizedDepth + 1))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := confirm.Options{NonceAccount: acct, Nonce: nonce}
	o.OnPoll = func(r confirm.Result) {
		switch r.Polls {
		case 10:
			var out rpc.GetSignatureStatusesResult
			err := ch.tc.CallForInto(engine.WithMonotonicReads(context.Background(), false), &out, "getSignatureStatuses",
				[]any{[]string{solana.Signature{9}.String()}, map[string]any{"searchTransactionHistory": true}})
			t.Logf("the application's history read: %v", err)
		case 20:
			cancel()
		}
	}
	r, _ := ch.drive(&o, 30, func(o confirm.Options) (confirm.Result, error) {
		return resolve.Resolve(ctx, ch.tc, tx.Signatures[0], 0, o)
	})
	var ejected []string
	for _, s := range ch.tc.Pool().Snapshot() {
		if s.Role != endpoint.RoleRead {
			continue
		}
		t.Logf("%s/read: %s, successes %d, failures %d, ejections %d, error rate %.2f", s.Name, s.State, s.Successes, s.Failures, s.Ejections, s.ErrorRate)
		if s.Ejections > 0 {
			ejected = append(ejected, fmt.Sprintf("%s (%d)", s.Name, s.Ejections))
		}
	}
	t.Logf("%s after %d polls", r.Status, r.Polls)
	if len(ejected) > 0 {
		t.Errorf("healthy no-history readers ejected: %v", ejected)
	}
}
