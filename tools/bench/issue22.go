package bench

import "fmt"

// issue22Before is healthy-2ms solroute's goodput over net/http's in the
// last report before issue 22 (0.94×, docs/benchmarks.md at 8d6f465):
// issue 22 asks that it stay so or improve.
const issue22Before = 0.94

// issue22Rows are issue 22's targets, read on cells of this run: healthy
// (zero latency: the pool's own CPU decides goodput) solroute at ≥ 0.97×
// round-robin's goodput and ≤ round-robin + 8 allocations per call, and
// healthy-2ms no worse than before. Each is read for solroute's typed
// calls (typed: requests written by solroute's encoder, as round-robin
// writes prebuilt bytes) and for solana-go's rpc.Client over solroute
// (which also pays solana-go's own encoding, as the solana-go row does).
func (r *Report) issue22Rows() []targetRow {
	var rows []targetRow
	rr, raw := r.Cell("healthy", "round-robin"), r.Cell("healthy-2ms", "net/http")
	for _, name := range []string{typed, "solroute"} {
		if c := r.Cell("healthy", name); c != nil && rr != nil && rr.Goodput() > 0 {
			q, measured := r.goodputRatio(c, rr)
			rows = append(rows, row(fmt.Sprintf("healthy: %s goodput ≥ 0.97× round-robin's", name), measured, q >= 0.97))
			extra := c.AllocsPerCall() - rr.AllocsPerCall()
			rows = append(rows, row(fmt.Sprintf("healthy: %s allocations per call ≤ round-robin's + 8", name),
				fmt.Sprintf("%+.1f (%.1f vs %.1f, the harness's included)", extra, c.AllocsPerCall(), rr.AllocsPerCall()), extra <= 8))
		}
		if c := r.Cell("healthy-2ms", name); c != nil && raw != nil && raw.Goodput() > 0 {
			q, measured := r.goodputRatio(c, raw)
			rows = append(rows, row(fmt.Sprintf("healthy-2ms: %s goodput ≥ %.2f× net/http's (its ratio before issue 22)", name, issue22Before), measured, q >= issue22Before))
		}
	}
	return rows
}
