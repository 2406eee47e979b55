package bench

import (
	"testing"
	"time"
)

// TestMarkdownIssue14 renders a made-up report of three rounds: issue
// 14's targets, each against a cell of the same run.
func TestMarkdownIssue14(t *testing.T) {
	ms := time.Millisecond
	cell := func(sc, client string, g int, lat ...time.Duration) Cell {
		var rounds []Cell
		for range 3 {
			rc := round1(g, 0, 0, time.Second, lat...)
			rc.Scenario, rc.Client = sc, client
			rounds = append(rounds, rc)
		}
		return poolRounds(rounds)
	}
	r := &Report{
		Callers: 4, Calls: 100, Rounds: 3, SendEvery: 10, CallTimeout: 2 * time.Second, CellTimeout: time.Second,
		Clients:   []string{"solroute", "solroute-fixed", "solroute-auto"},
		Scenarios: []string{"healthy", "blackholed", "slow-peer"},
		Cells: []Cell{
			cell("healthy", "solroute", 1000, 2*ms, 10*ms),
			cell("healthy", "solroute-fixed", 1050, 2*ms, 10*ms),
			cell("healthy", "solroute-auto", 900, 2*ms, 12*ms),
			cell("blackholed", "solroute", 950, 2*ms, 30*ms, 500*ms),
			cell("blackholed", "solroute-fixed", 900, 2*ms, 30*ms, time.Second),
			cell("blackholed", "solroute-auto", 950, 2*ms, 30*ms, 40*ms),
			cell("slow-peer", "solroute", 950, 2*ms, 300*ms),
			cell("slow-peer", "solroute-auto", 950, 2*ms, 520*ms),
		},
	}
	markdownHas(t, r,
		"## Targets (issue 14): adaptive attempt timeouts and hedge_after = \"auto\"\n",
		"| blackholed, solroute: p99 ≤ 5× its healthy p99 | 500 ms vs 10 ms (50.00×; all 3 rounds' calls pooled) | no |",
		"| blackholed, solroute-auto: p99 ≤ 2× its healthy p99 | 40 ms vs 12 ms (3.33×; all 3 rounds' calls pooled) | no |",
		"| blackholed: p99.9 of solroute ÷ solroute-fixed's (the attempt timeout of before) | 500 ms vs 1.00 s (0.50×; all 3 rounds' calls pooled) | — |",
		"| healthy: solroute's goodput unchanged within noise (≥ 0.9× solroute-fixed's, same run) | 0.95× (1000 vs 1050 calls/s; medians of 3 rounds, per-round ratios 0.95–0.95×) | yes |",
		"| slow-peer, solroute: the 300 ms endpoint is not timed out into failures (success 100 %, no call as long as the 500 ms floor) | success 100.00 %, slowest call 300 ms; all 3 rounds' calls pooled | yes |",
		"| slow-peer, solroute-auto: the 300 ms endpoint is not timed out into failures (success 100 %, no call as long as the 500 ms floor) | success 100.00 %, slowest call 520 ms; all 3 rounds' calls pooled | no |",
		"a send; for a read, the adaptive timeout, at least 500 ms",
	)
}
