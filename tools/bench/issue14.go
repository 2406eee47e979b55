package bench

import (
	"fmt"
	"time"
)

// adaptiveFloor is the shortest adaptive attempt timeout, as the library
// documents it (README, "Guarantees": a read's attempt is cut at its
// endpoint's recent latency, "at least 500 ms"; transport.Settings's
// AttemptTimeout). The library does not export the constant, and this
// module imports no internal package of the library (tools_test.go), so
// the report states the documented figure.
const adaptiveFloor = 500 * time.Millisecond

// issue14Rows are issue 14's targets (adaptive attempt timeouts and
// hedge_after = "auto", plan 010), each read on cells of this run: the
// blackholed p99 of plain solroute at most 5× its healthy p99, and of
// solroute-auto at most 2× its own healthy p99; healthy goodput unchanged
// within noise against solroute-fixed, the attempt timeout of before; and
// no call of the slow-peer scenario cut by an attempt timeout. The tail
// the adaptive timeout shortens, blackholed p99.9, is shown beside its
// baseline.
func (r *Report) issue14Rows() []targetRow {
	var rows []targetRow
	_, pooled := r.aggregation()
	ratio := func(c, h *Cell, q float64) (float64, string) {
		cp, hp := c.Percentile(q), h.Percentile(q)
		k := float64(cp) / float64(max(hp, 1))
		return k, fmt.Sprintf("%s vs %s (%.2f×%s)", fmtLatency(cp), fmtLatency(hp), k, pooled)
	}
	for _, t := range []struct {
		client string
		limit  float64
	}{{"solroute", 5}, {"solroute-auto", 2}} {
		c, h := r.Cell("blackholed", t.client), r.Cell("healthy", t.client)
		if c == nil || h == nil {
			continue
		}
		k, measured := ratio(c, h, 0.99)
		rows = append(rows, row(fmt.Sprintf("blackholed, %s: p99 ≤ %.0f× its healthy p99", t.client, t.limit), measured, k <= t.limit))
	}
	if f := r.Cell("blackholed", "solroute-fixed"); f != nil {
		for _, cn := range []string{"solroute", "solroute-auto"} {
			if c := r.Cell("blackholed", cn); c != nil {
				_, measured := ratio(c, f, 0.999)
				rows = append(rows, targetRow{"blackholed: p99.9 of " + cn + " ÷ solroute-fixed's (the attempt timeout of before)", measured, "—"})
			}
		}
	}
	if c, f := r.Cell("healthy", "solroute"), r.Cell("healthy", "solroute-fixed"); c != nil && f != nil && f.Goodput() > 0 {
		q, measured := r.goodputRatio(c, f)
		rows = append(rows, row("healthy: solroute's goodput unchanged within noise (≥ 0.9× solroute-fixed's, same run)", measured, q >= 0.9))
	}
	for _, cn := range []string{"solroute", "solroute-auto"} {
		c := r.Cell("slow-peer", cn)
		if c == nil {
			continue
		}
		// An attempt cut by an adaptive timeout waited at least
		// AdaptiveFloor, so its call lasted at least that long.
		slowest := c.Percentile(1)
		rows = append(rows, row(fmt.Sprintf("slow-peer, %s: the %s endpoint is not timed out into failures (success 100 %%, no call as long as the %s floor)", cn, fmtLatency(slowPeerLatency), fmtLatency(adaptiveFloor)),
			fmt.Sprintf("success %s, slowest call %s%s", percent(c.SuccessRate()), fmtLatency(slowest), pooled),
			c.Failed == 0 && c.Ambiguous == 0 && slowest < adaptiveFloor))
	}
	return rows
}

// goodputRatio is c's goodput over base's (base's > 0), and how the
// report writes it: both goodputs, how they were aggregated and, over
// several rounds, the range of the per-round ratios.
func (r *Report) goodputRatio(c, base *Cell) (float64, string) {
	medians, _ := r.aggregation()
	q := c.Goodput() / base.Goodput()
	measured := fmt.Sprintf("%.2f× (%.0f vs %.0f calls/s%s", q, c.Goodput(), base.Goodput(), medians)
	if lo, hi, ok := roundRatios(c, base); ok && r.rounds() > 1 {
		measured += fmt.Sprintf(", per-round ratios %.2f–%.2f×", lo, hi)
	}
	return q, measured + ")"
}
