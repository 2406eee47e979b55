package bench

import "fmt"

// issue15Rows are issue 15's targets, read on cells of this run: goodput
// of solroute with metrics and tracing within 5 % of plain solroute's, in
// healthy (zero latency: CPU-bound) and healthy-2ms, with every span
// recorded by the SDK (solroute-observed) and on a no-op provider
// (solroute-metrics), and the allocations and CPU time they add per call.
func (r *Report) issue15Rows() []targetRow {
	var rows []targetRow
	for _, sc := range []string{"healthy", "healthy-2ms"} {
		for _, t := range []struct{ client, what string }{
			{observed, "metrics and tracing, every span recorded"},
			{observedNoop, "metrics and tracing on a no-op provider"},
		} {
			c, s := r.Cell(sc, t.client), r.Cell(sc, "solroute")
			if c == nil || s == nil || s.Goodput() <= 0 {
				continue
			}
			q, measured := r.goodputRatio(c, s)
			rows = append(rows, row(fmt.Sprintf("%s: goodput with %s ≥ 0.95× plain solroute's", sc, t.what), measured, q >= 0.95))
			if sc != "healthy" {
				continue
			}
			rows = append(rows, targetRow{fmt.Sprintf("%s: allocations per call added by %s", sc, t.what),
				fmt.Sprintf("%+.1f (%.1f vs %.1f, the fake servers' included)", c.AllocsPerCall()-s.AllocsPerCall(), c.AllocsPerCall(), s.AllocsPerCall()), "—"})
			if cc, scpu := c.CPUPerCall(), s.CPUPerCall(); cc > 0 && scpu > 0 {
				rows = append(rows, targetRow{fmt.Sprintf("%s: CPU time per call with %s ÷ without", sc, t.what),
					fmt.Sprintf("%.2f× (%s vs %s, the fake servers' included)", float64(cc)/float64(scpu), fmtLatency(cc), fmtLatency(scpu)), "—"})
			}
		}
	}
	return rows
}
