package resolve_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/resolve"
)

// TestNonceCostHistoryReadsPerPoll counts the history-searched
// getSignatureStatuses each reader receives (a, b; honest, or both
// without history: -32011), over a resolution of a durable-nonce
// transaction:
//   - "moved before, never lands": Resolve after another transaction
//     used the nonce; 30 polls, then the context ends (unknown: no
//     witness can vouch, by design);
//   - "fresh nonce, lands": signed on a nonce set 2 slots before (the
//     previous transaction on the account), sent with skipPreflight: the
//     finalized banks still hold the previous nonce;
//   - "settled nonce, lands": the usual case, the nonce finalized.
func TestNonceCostHistoryReadsPerPoll(t *testing.T) {
	for _, hist := range []bool{true, false} {
		for _, sc := range []string{"moved before, never lands", "fresh nonce, lands", "settled nonce, lands"} {
			t.Run(fmt.Sprintf("history %v/%s", hist, sc), func(t *testing.T) {
				var script fixtures.Script
				if !hist {
					script = noHistory
				}
				pa, pb := &proxyBy{match: historyStatus}, &proxyBy{match: historyStatus}
				ch := newChainScripted(t, script, func(specs []endpoint.Spec, cp *chainParts) {
					specs[0].URL = endpoint.NewSecret(pa.start(t, cp.c.Server("a").URL()))
					specs[1].URL = endpoint.NewSecret(pb.start(t, cp.c.Server("b").URL()))
				}, node{name: "a"}, node{name: "b"})
				seed := uint64(0xb0)
				nonce := solana.Hash{0xb0}
				acct := ch.putNonce(seed, nonce)
				tx := ch.nonceTx(seed, 1, nonce)
				switch sc {
				case "moved before, never lands":
					ch.ledger.Drop(tx.Signatures[0].String(), math.MaxInt)
					if _, err := sendVia(ch, "a", ch.nonceTx(seed, 2, nonce)); err != nil {
						t.Fatal(err)
					}
					ch.clock.Advance(slotsOf(fixturedata.DefaultLandAfter + fixturedata.FinalizedDepth + 1))
				case "fresh nonce, lands":
					if _, err := sendVia(ch, "a", ch.nonceTx(seed, 2, nonce)); err != nil {
						t.Fatal(err)
					}
					ch.clock.Advance(slotsOf(fixturedata.DefaultLandAfter))
					tx = ch.nonceTx(seed, 3, ch.nonceNow(acct))
				}
				before := 0
				for _, n := range []string{"a", "b"} {
					before += len(ch.c.Server(n).Requests())
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				o := skip
				o.OnPoll = func(r confirm.Result) {
					if r.Polls == costPolls {
						cancel()
					}
				}
				r, err := ch.drive(&o, costPolls+10, func(o confirm.Options) (confirm.Result, error) {
					if sc == "moved before, never lands" {
						o.NonceAccount, o.Nonce = acct, nonce
						return resolve.Resolve(ctx, ch.tc, tx.Signatures[0], 0, o)
					}
					return resolve.SendAndConfirm(ctx, ch.tc, tx, 0, o)
				})
				reqs := 0
				for _, n := range []string{"a", "b"} {
					reqs += len(ch.c.Server(n).Requests())
				}
				var states []string
				for _, s := range ch.tc.Pool().Snapshot() {
					states = append(states, fmt.Sprintf("%s/%s %s cooldown %v", s.Name, s.Role, s.State, s.CooldownRemaining))
				}
				t.Logf("%s after %d polls (err %v, last %v); history reads a %d, b %d; requests at the servers %d; pool %v",
					r.Status, r.Polls, err, r.LastErr, pa.n.Load(), pb.n.Load(), reqs, states)
				// plans/011's cost: one status through the pool plus one read per read endpoint a poll,
				// a send, and once a resolution one history search per reader that cannot vouch (up
				// to 4 attempts on a node without history, -32011 being retried).
				if limit := r.Polls*(1+2) + 1 + 2*4; reqs-before > limit {
					t.Errorf("%d requests in %d polls: over the documented %d", reqs-before, r.Polls, limit)
				}
			})
		}
	}
}

const costPolls = 30
