package bench

import (
	"testing"
	"time"
)

// TestMarkdownIssue22 renders a made-up report of three rounds: issue
// 22's targets for the typed client and solana-go over solroute, each
// against round-robin (healthy) or net/http (healthy-2ms) in the same run.
func TestMarkdownIssue22(t *testing.T) {
	cell := func(sc, client string, g int, mallocsPerCall uint64) Cell {
		var rounds []Cell
		for range 3 {
			rc := round1(g, 0, 0, time.Second, time.Millisecond)
			rc.Scenario, rc.Client, rc.Mallocs = sc, client, mallocsPerCall*uint64(rc.Made)
			rounds = append(rounds, rc)
		}
		return poolRounds(rounds)
	}
	r := &Report{
		Callers: 4, Calls: 100, Rounds: 3, SendEvery: 10, CallTimeout: 2 * time.Second, CellTimeout: time.Second,
		Clients:   []string{"net/http", "round-robin", "solroute", typed},
		Scenarios: []string{"healthy", "healthy-2ms"},
		Cells: []Cell{
			cell("healthy", "round-robin", 1000, 80),
			cell("healthy", typed, 980, 87),
			cell("healthy", "solroute", 860, 120),
			cell("healthy-2ms", "net/http", 1000, 80),
			cell("healthy-2ms", typed, 960, 87),
			cell("healthy-2ms", "solroute", 930, 120),
		},
	}
	markdownHas(t, r,
		"## Targets (issue 22): what the pool costs a call\n",
		"| healthy: solroute-typed goodput ≥ 0.97× round-robin's | 0.98× (980 vs 1000 calls/s; medians of 3 rounds, per-round ratios 0.98–0.98×) | yes |",
		"| healthy: solroute-typed allocations per call ≤ round-robin's + 8 | +7.0 (87.0 vs 80.0, the harness's included) | yes |",
		"| healthy-2ms: solroute-typed goodput ≥ 0.94× net/http's (its ratio before issue 22) | 0.96× (960 vs 1000 calls/s; medians of 3 rounds, per-round ratios 0.96–0.96×) | yes |",
		"| healthy: solroute goodput ≥ 0.97× round-robin's | 0.86× (860 vs 1000 calls/s; medians of 3 rounds, per-round ratios 0.86–0.86×) | no |",
		"| healthy: solroute allocations per call ≤ round-robin's + 8 | +40.0 (120.0 vs 80.0, the harness's included) | no |",
		"| healthy-2ms: solroute goodput ≥ 0.94× net/http's (its ratio before issue 22) | 0.93× (930 vs 1000 calls/s; medians of 3 rounds, per-round ratios 0.93–0.93×) | no |",
	)
}
