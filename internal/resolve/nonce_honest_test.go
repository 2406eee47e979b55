package resolve_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturespec"
	"github.com/solroute/solroute/internal/resolve"
)

// TestDurableNonceOverHonestSplitEndpoints: three honest backends, each
// endpoint splitting its calls across them by method, with drops,
// rebroadcasts and another transaction taking the nonce, at Quorum 1:
// every verdict matches the ledger (the first review's check, held).
func TestDurableNonceOverHonestSplitEndpoints(t *testing.T) {
	for seed := uint64(0); seed < 24; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			clock := clockwork.NewFakeClockAt(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			ledger := fixtures.NewLedger()
			var members []fixtures.Member
			for _, n := range []node{{name: "a"}, {name: "b", lag: 12}, {name: "c", lag: 30}} {
				l := endpoint.Limits{RequestTimeout: 2 * time.Second}
				members = append(members, fixtures.Member{Name: n.name, Read: &l, Send: &l,
					Options: fixtures.Options{Clock: clock, Ledger: ledger, Slots: &fixtures.SlotOptions{Start: 1000, Lag: n.lag,
						Drift: &fixtures.Drift{Max: 6, Seed: seed*7 + uint64(len(n.name))}}}})
			}
			c := fixtures.NewCluster(members)
			specs := fixturespec.Specs(c)
			u := func(n string) string { return c.Server(n).URL() }
			specs[0].URL = endpoint.NewSecret(splitter(t, u("a"), u("c")))
			specs[1].URL = endpoint.NewSecret(splitter(t, u("b"), u("a")))
			specs[2].URL = endpoint.NewSecret(splitter(t, u("c"), u("b")))
			ch := chainOver(t, clock, ledger, c, specs)
			nonce := solana.Hash{0x90, byte(seed)}
			ch.putNonce(90+seed, nonce)
			tx, other := ch.nonceTx(90+seed, 1, nonce), ch.nonceTx(90+seed, 2, nonce)
			sig := tx.Signatures[0].String()
			ch.ledger.Drop(sig, int(seed%5))
			o := skip
			o.Quorum = 1
			o.Rebroadcast = slotsOf(seed%4 + 2)
			moveAt := int(seed*3%20) + 1
			o.OnPoll = func(r confirm.Result) {
				if r.Polls == moveAt {
					_, _ = sendVia(ch, []string{"a", "b", "c"}[seed%3], other)
				}
			}
			r, err := ch.drive(&o, 200, func(o confirm.Options) (confirm.Result, error) {
				return resolve.SendAndConfirm(context.Background(), ch.tc, tx, 0, o)
			})
			truth := ch.ledger.Tx(sig)
			t.Logf("%v polls %d rb %d", r.Status, r.Polls, r.Rebroadcasts)
			if err != nil || (r.Status == confirm.Expired) != (!truth.Landed) || (r.Status == confirm.Expired && !truth.Expired) {
				t.Fatalf("%v %v truth %+v: %s", err, r.Status, truth, r.Reason)
			}
		})
	}
}
