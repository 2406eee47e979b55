package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/fixtures"
)

// TestReadsSurviveAStalledChain (issue 20, item 9): the chain stops (a
// cluster halt, a run of skipped slots, a local test ledger) while the
// client keeps reading for a minute. The servers' slot model runs on a
// clock of its own that never moves, so every endpoint answers the same
// slot throughout (c one behind); the pool's clock moves on. The read
// floor must never rise above what the endpoints reported, so no read
// asks for a slot nobody reached and none fails.
func TestReadsSurviveAStalledChain(t *testing.T) {
	for _, c := range []rpc.CommitmentType{rpc.CommitmentConfirmed, rpc.CommitmentProcessed} {
		t.Run("commitment="+string(c), func(t *testing.T) {
			e := newEnv(t, []fixtures.Member{slotted("a", 0), slotted("b", 0), slotted("c", 1)}, conf{}, nil)
			ctx := context.Background()
			tip := e.server("a").Slot(string(c))
			step := 100 * time.Millisecond
			for i := range 600 { // 60 s of stall
				out, err := balanceAt(ctx, e.client, c)
				if err != nil {
					t.Fatalf("read at %v of stall: %v", time.Duration(i)*step, err)
				}
				if out.Context.Slot > tip {
					t.Fatalf("read at %v answered at slot %d, past the frozen tip %d", time.Duration(i)*step, out.Context.Slot, tip)
				}
				e.clock.Advance(step)
			}
			// No read asked for a slot no endpoint had reached (c, a slot
			// behind, may refuse the slot a and b answered: the caller's
			// own mark).
			for _, name := range []string{"a", "b", "c"} {
				for _, r := range e.server(name).Requests() {
					if got := minContextSlotOf(t, r, 1); got > tip {
						t.Fatalf("%s was asked for minContextSlot %d, past the frozen tip %d", name, got, tip)
					}
				}
			}
		})
	}
}
