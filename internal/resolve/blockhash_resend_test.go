package resolve_test

import (
	"context"
	"strings"
	"testing"

	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/resolve"
)

// TestBlockhashTransactionRefusalsAreAsBefore: an ordinary
// transaction, a (-32005 on sends) first. Landed and sent again with
// preflight: "already processed", resolved, landed, at FanOut 1 and 2.
// Signed on a blockhash past its 150 blocks: BlockhashNotFound, returned
// as an error with no poll and no history read, at FanOut 1 and 2.
func TestBlockhashTransactionRefusalsAreAsBefore(t *testing.T) {
	for _, k := range []int{1, 2} {
		ch := newChain(t, node{name: "a", fault: fixtures.RPC(-32005)}, node{name: "b"}, node{name: "c"})
		tx, lvbh := ch.tx(94, 0)
		if _, err := sendVia(ch, "b", tx); err != nil {
			t.Fatal(err)
		}
		ch.clock.Advance(slotsOf(fixturedata.DefaultLandAfter + fixturedata.FinalizedDepth + 1))
		o := confirm.Options{FanOut: k}
		r, err := ch.drive(&o, 20, func(o confirm.Options) (confirm.Result, error) {
			return resolve.SendAndConfirm(context.Background(), ch.tc, tx, lvbh, o)
		})
		if err != nil || r.Status != confirm.Landed {
			t.Errorf("FanOut %d, landed: %s, error %v", k, r.Status, err)
		}
		stale, lvbh := ch.tx(95, fixturedata.MaxProcessingAge+fixturedata.FinalizedDepth+10)
		before := 0
		for _, name := range []string{"a", "b", "c"} {
			before += ch.c.Server(name).Stats().Calls["getSignatureStatuses"]
		}
		o = confirm.Options{FanOut: k}
		r, err = ch.drive(&o, 20, func(o confirm.Options) (confirm.Result, error) {
			return resolve.SendAndConfirm(context.Background(), ch.tc, stale, lvbh, o)
		})
		after := 0
		for _, name := range []string{"a", "b", "c"} {
			after += ch.c.Server(name).Stats().Calls["getSignatureStatuses"]
		}
		if err == nil || !strings.Contains(err.Error(), "Blockhash not found") || r.Polls != 0 || after != before {
			t.Errorf("FanOut %d, stale: %s after %d polls, error %v, %d status reads", k, r.Status, r.Polls, err, after-before)
		}
	}
}
