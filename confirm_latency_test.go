package solroute_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/fixtures"
)

// TestConfirmLatencyBothWays measures, on one fake cluster (three
// endpoints with HTTP and PubSub, 400 ms slots, default PollInterval),
// the fake-clock time from SendAndConfirm's call to its verdict over 50
// sends confirmed by polling alone and 50 with the subscription; then
// with endpoints lagging 0, 3 and 6 slots, and with polls 2 s apart (a
// user sparing request credits). Each
// send starts at a random point of a slot (the same points both ways,
// seeded): a bot's sends are not in phase with the slots. Polling alone
// runs the same resolver and waits through a watch that never notifies.
func TestConfirmLatencyBothWays(t *testing.T) {
	const n = 50 // about 2 s of test time: -short runs it too
	for _, c := range []struct {
		lags []uint64
		poll time.Duration
	}{{nil, 0}, {[]uint64{0, 3, 6}, 0}, {nil, 2 * time.Second}} {
		e, t0 := newLaggingConfirmEnv(t, fixtures.Fault{}, c.lags)
		t.Logf("endpoints lagging %v slots, PollInterval %v (0: one slot):", c.lags, c.poll)
		confirmLatency(t, e, t0, n, c.poll)
	}
}

// confirmLatency runs n sends each way on e and logs the figures.
func confirmLatency(t *testing.T, e *subEnv, t0 time.Time, n int, poll time.Duration) {
	for _, way := range []string{"polling only", "with signatureSubscribe"} {
		rng := rand.New(rand.NewPCG(23, 11))
		var took []time.Duration
		var polls []int
		for i := range n {
			e.settle()
			e.clock.Advance(time.Duration(rng.Int64N(int64(slotTime)/int64(time.Millisecond))) * time.Millisecond)
			e.settle()
			s := newStepper(e, t0)
			s.silent = way == "polling only"
			tx := e.tx(1000*len(way) + i)
			start := e.clock.Now()
			r, err := s.sendAndConfirm(t, 200, tx, confirmOpts(poll))
			truth := e.ledger.Tx(tx.tx.Signatures[0].String())
			if err != nil || r.Status != confirm.Landed || r.Slot != truth.Slot {
				t.Fatalf("%s %d: result %+v, error %v, truth %+v", way, i, r, err, truth)
			}
			took, polls = append(took, e.clock.Since(start)), append(polls, r.Polls)
		}
		t.Logf("  %s, %d sends: %s", way, n, latencies(took, polls))
	}
}

// latencies is "p50 D (N polls), p90 D (N polls), max D".
func latencies(took []time.Duration, polls []int) string {
	at := func(q float64) int { return min(len(took)-1, int(q*float64(len(took)))) }
	d, p := slices.Clone(took), slices.Clone(polls)
	slices.Sort(d)
	slices.Sort(p)
	return fmt.Sprintf("p50 %v (%d polls), p90 %v (%d polls), max %v", d[at(0.5)], p[at(0.5)], d[at(0.9)], p[at(0.9)], d[len(d)-1])
}
