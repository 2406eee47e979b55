package pubsub_test

import (
	"errors"
	"testing"

	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/pubsub"
)

// TestGapWhenEveryEndpointFails: docs/subscriptions.md says a program or
// logs subscription returns a *GapError when every endpoint holding the
// stream failed. Here the only endpoint is cut and comes back: the new
// leg goes live on a connection dialed anew, which has heard no slot yet
// when the subscribe is answered. The gap still comes, once that
// connection hears one, and covers the change that landed meanwhile.
func TestGapWhenEveryEndpointFails(t *testing.T) {
	for _, kind := range []string{"program", "logs"} {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t, []member{{name: "a"}}, redundancy(1))
			owner := key(40)
			recv := subscribeForGap(t, e, kind, owner)
			change := func(lamports uint64) uint64 {
				_, at, err := e.ledger.Apply(fixtures.Change{Mentions: []string{owner.String()},
					Accounts: map[string]*fixtures.AccountState{key(41).String(): {Lamports: lamports, Owner: owner.String()}}})
				if err != nil {
					t.Fatal(err)
				}
				return at
			}
			change(1)
			e.steps(4)
			if n, err := recv(); err != nil || n == 0 {
				t.Fatalf("before the cut: %d, %v", n, err)
			}
			e.ps["a"].SetDown(true)
			missed := change(2) // lands, and is confirmed, while no endpoint holds the stream
			e.steps(10)
			e.ps["a"].SetDown(false)
			e.steps(10)
			var gaps []*pubsub.GapError
			values := 0
			for {
				n, err := recv()
				var gap *pubsub.GapError
				if errors.As(err, &gap) {
					gaps = append(gaps, gap)
				} else if n == 0 {
					break
				} else {
					values++
				}
			}
			if len(gaps) != 1 || values != 0 {
				t.Fatalf("after the outage: %d gaps, %d values (engine gaps %d); want one failover gap alone",
					len(gaps), values, e.eng.Snapshot().Gaps)
			}
			if g := gaps[0]; g.Reason != "failover" || g.From > missed || g.To < missed {
				t.Errorf("gap %d..%d (%s) does not cover the change missed at slot %d", g.From, g.To, g.Reason, missed)
			}
			change(3) // the stream is back: this one is delivered
			e.steps(6)
			if n, err := recv(); err != nil || n == 0 {
				t.Fatalf("after the outage: %d, %v: the stream did not come back", n, err)
			}
			if got := e.eng.Snapshot().Gaps; got != 1 {
				t.Errorf("engine gaps %d, want 1", got)
			}
		})
	}
}
