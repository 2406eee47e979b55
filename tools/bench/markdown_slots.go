package bench

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Issue 13's part of the report: its targets, and the slot table of a
// scenario with a lagging endpoint.

// maxTrackingCost is issue 13's bound on what slot tracking may cost
// healthy goodput: on ≥ (1 − 3 %) × off.
const maxTrackingCost = 0.03

// issue13Rows are issue 13's targets: in lagging-silent, plain solroute
// returns no read back in time and serves none from the lagging endpoint
// once its lag is known; in healthy, tracking costs at most 3 % of
// goodput. Beside them, not targets: what solroute served before it knew,
// the other clients in lagging-silent, and back-in-time reads in the
// other scenarios.
func (r *Report) issue13Rows() []targetRow {
	var rows []targetRow
	medians, pooled := r.aggregation()
	if c := r.Cell(laggingScenario, "solroute"); c != nil && c.Lags() {
		rows = append(rows, row(laggingScenario+": solroute reads back in time = 0",
			fmt.Sprintf("%d of %d reads%s", c.BackInTime, c.SlotReads, pooled), c.SlotReads > 0 && c.BackInTime == 0))
		if knownRounds(c) > 0 {
			rows = append(rows, row(laggingScenario+": solroute reads served by the lagging endpoint a once its lag is known = 0 %",
				fmt.Sprintf("%s (%d of the %d reads that started after solroute's first answer from a, %s after the fault%s)",
					fmtShare(ratioOf(c.LaggingReadsKnown, c.SlotReadsKnown)), c.LaggingReadsKnown, c.SlotReadsKnown, fmtKnown(c.RoundLagKnown), pooled),
				c.SlotReadsKnown > 0 && c.LaggingReadsKnown == 0))
		} else {
			// Never heard from a: "once known" never began, and the whole
			// phase is what can be judged.
			rows = append(rows, row(laggingScenario+": solroute reads served by the lagging endpoint a once its lag is known = 0 %",
				fmt.Sprintf("solroute never received an answer from a; %d of %d reads from a%s", c.LaggingReads, c.SlotReads, pooled),
				c.SlotReads > 0 && c.LaggingReads == 0))
		}
		rows = append(rows, targetRow{laggingScenario + ": solroute, the whole phase, fault's onset included",
			fmt.Sprintf("%d reads returned from a (%d before its lag was known); a answered %d getBalance calls with a result, counted by a; %d requests reached a, refusals included",
				c.LaggingReads, c.LaggingReads-c.LaggingReadsKnown, c.LaggingAnswered, requestsTo(c, 0)),
			"—"})
	}
	for _, cn := range r.Clients {
		c := r.Cell(laggingScenario, cn)
		if cn == "solroute" || c == nil || !c.Lags() {
			continue
		}
		rows = append(rows, targetRow{laggingScenario + ": " + cn + ", for comparison", fmtSlotFigures(c), "—"})
	}
	if len(rows) > 0 {
		var others []string
		reads := 0
		for _, c := range r.Cells {
			if c.Scenario == laggingScenario {
				continue
			}
			reads += c.SlotReads
			if c.BackInTime > 0 {
				others = append(others, fmt.Sprintf("%s in %s %d of %d", c.Client, c.Scenario, c.BackInTime, c.SlotReads))
			}
		}
		if reads > 0 {
			measured := fmt.Sprintf("none, for any client (%d reads)", reads)
			if len(others) > 0 {
				measured = strings.Join(others, "; ") + "; none for the other cells"
			}
			rows = append(rows, targetRow{"every other scenario: reads back in time (no endpoint lags there)", measured, "—"})
		}
	}
	on, off := r.Cell("healthy", "solroute"), r.Cell("healthy", trackingOff)
	if on != nil && off != nil && off.Goodput() > 0 {
		q := on.Goodput() / off.Goodput()
		measured := fmt.Sprintf("%.3f× (%.0f vs %.0f calls/s%s", q, on.Goodput(), off.Goodput(), medians)
		if lo, hi, ok := roundRatios(on, off); ok && r.rounds() > 1 {
			measured += fmt.Sprintf(", per-round ratios %.2f–%.2f×", lo, hi)
		}
		measured += ")"
		rows = append(rows, row(fmt.Sprintf("healthy: goodput with slot tracking on ≥ %.2f× off (within %.0f %%)", 1-maxTrackingCost, 100*maxTrackingCost),
			measured, q >= 1-maxTrackingCost))
		cost := ""
		if con, coff := on.CPUPerCall(), off.CPUPerCall(); con > 0 && coff > 0 {
			cost = fmt.Sprintf("CPU/call %s vs %s (%+.1f %%); ", fmtLatency(con), fmtLatency(coff), 100*(float64(con)/float64(coff)-1))
		}
		rows = append(rows, targetRow{"healthy: what slot tracking costs per call, on vs off",
			fmt.Sprintf("%sallocs/call %.1f vs %.1f; p50 %s vs %s; p99 %s vs %s%s",
				cost, on.AllocsPerCall(), off.AllocsPerCall(),
				fmtLatency(on.Percentile(0.5)), fmtLatency(off.Percentile(0.5)),
				fmtLatency(on.Percentile(0.99)), fmtLatency(off.Percentile(0.99)), pooled),
			"—"})
	}
	return rows
}

// writeIssue13 writes issue 13's targets table and the note that defines
// its measures, when the report holds its cells.
func (r *Report) writeIssue13(p func(string, ...any)) {
	rows := r.issue13Rows()
	if len(rows) == 0 {
		return
	}
	writeTable(p, "Targets (issue 13): a lagging endpoint that answers, slot-aware routing and monotonic reads", rows)
	lagging := r.Cell(laggingScenario, "solroute") != nil
	if lagging {
		p("In `%s` endpoint `a` falls %d slots behind the other two when the fault is applied and keeps answering every call normally ", laggingScenario, silentLag)
		p("(under agave's 128-slot health distance: it calls itself healthy). ")
	}
	p("Every endpoint of every scenario runs the fixtures' slot model, and every read is a `getBalance` at `%s` commitment, whose answer carries its context slot. ", benchCommitment)
	p("The targets are read on the plain `solroute` client: slot tracking on, its default (`pool.Settings.MaxSlotLag` 16, `transport.Settings.MonotonicReads` true); ")
	p("`%s` is solroute with both off.\n\n", trackingOff)
	p("- *Back in time*: a successful read whose context slot is below the highest slot of the reads the same client instance had returned before it started ")
	p("(the warm-up's included, all of which ended before the measured phase). ")
	p("Under concurrency this is the honest definition: a read is only compared with the reads that ended before it started, which its caller could have seen; ")
	p("two overlapping reads may end in either order. All reads are at one commitment, so one mark per client is the mark per caller and commitment.\n")
	if lagging {
		p("- *From a*: a successful read returned with the lagging endpoint's slot, below the midpoint between `a`'s slot and the others' at the fault (moved up a slot per 400 ms); ")
		p("the others' slots are above it and `a`'s below it for any call shorter than 20 s. *Answered by a* is counted by `a` itself: the `getBalance` calls it answered with a result during the measured phase, ")
		p("whether the client used the answer or not; a -32016 refusal below the `minContextSlot` the client asked for is not an answer.\n")
		p("- *Once known*: the client could know the lag from the first answer it received from `a` after the fault: the end of the first read returned from `a`, ")
		p("or, for solroute, which reports every attempt (`transport.Observer`'s `AttemptEnded`), the first attempt `a` answered, a refusal included (a -32016 carries `a`'s slot). ")
		p("A read counts as once known when it started after that moment; the reads already under way then could not have known.\n")
	}
	p("- *Tracking on vs off* compares `solroute` and `%s` in `healthy`, measured in the same rounds seconds apart", trackingOff)
	if n := r.rounds(); n > 1 {
		p(": the ratio of the medians of %d rounds, with the range of the per-round ratios", n)
	}
	p("; with the slot model on, the cost of tracking is real: every read carries a `minContextSlot` to check, and every answer's slot is parsed. ")
	p("Within %.0f %% is read one-sided: tracking may cost at most %.0f %%; a faster tracking-on cell is noise, not a failure. ", 100*maxTrackingCost, 100*maxTrackingCost)
	p("Goodput on a shared 2-core machine moves by more than 3 %% from one measure to the next, so the cost row beside it gives CPU time per call as well: ")
	p("the process's user and system time over the measured calls (the servers run in the child process), which other processes on the cores move far less than they move goodput.\n\n")
}

// writeSlotTable writes, under a scenario whose endpoint "a" lags, where
// each client's reads were served and whether they went back in time.
func (r *Report) writeSlotTable(p func(string, ...any), scenario string) {
	var cells []*Cell
	for _, cn := range r.Clients {
		if c := r.Cell(scenario, cn); c != nil && c.Lags() {
			cells = append(cells, c)
		}
	}
	if len(cells) == 0 {
		return
	}
	p("Where the reads were served (see issue 13's targets above for the definitions):\n\n")
	p("| client | reads ok | back in time | returned from a | from a once known | answered by a (counted by a) | first answer from a after the fault |\n")
	p("|---|--:|--:|--:|--:|--:|--:|\n")
	for _, c := range cells {
		p("| %s | %d | %d (%s) | %d (%s) | %d of %d (%s) | %d | %s |\n", c.Client, c.SlotReads,
			c.BackInTime, fmtShare(ratioOf(c.BackInTime, c.SlotReads)),
			c.LaggingReads, fmtShare(ratioOf(c.LaggingReads, c.SlotReads)),
			c.LaggingReadsKnown, c.SlotReadsKnown, fmtShare(ratioOf(c.LaggingReadsKnown, c.SlotReadsKnown)),
			c.LaggingAnswered, fmtKnown(c.RoundLagKnown))
	}
	p("\n")
}

// fmtSlotFigures prints a lagging scenario's figures of one client on one
// line.
func fmtSlotFigures(c *Cell) string {
	return fmt.Sprintf("%d of %d reads back in time (%s); %d returned from a (%s), %d of the %d that started once its lag was known (%s); a answered %d",
		c.BackInTime, c.SlotReads, fmtShare(ratioOf(c.BackInTime, c.SlotReads)),
		c.LaggingReads, fmtShare(ratioOf(c.LaggingReads, c.SlotReads)),
		c.LaggingReadsKnown, c.SlotReadsKnown, fmtShare(ratioOf(c.LaggingReadsKnown, c.SlotReadsKnown)),
		c.LaggingAnswered)
}

// knownRounds counts the rounds in which the client heard from the
// lagging endpoint.
func knownRounds(c *Cell) int {
	n := 0
	for _, k := range c.RoundLagKnown {
		if k >= 0 {
			n++
		}
	}
	return n
}

// ratioOf is n/of, 0 when of is 0.
func ratioOf(n, of int) float64 {
	if of <= 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// requestsTo returns the requests endpoint e received in the cell's
// measured phases.
func requestsTo(c *Cell, e int) int {
	if e < len(c.Requests) {
		return c.Requests[e]
	}
	return 0
}

// fmtKnown prints when each round's client first heard from the lagging
// endpoint: "0.41 ms", or the range over the rounds "0.41–2.1 ms" (in
// the larger one's unit), "never" for rounds where no answer came.
func fmtKnown(known []time.Duration) string {
	var seen []time.Duration
	for _, k := range known {
		if k >= 0 {
			seen = append(seen, k)
		}
	}
	never := len(known) - len(seen)
	switch {
	case len(known) == 0:
		return "—"
	case len(seen) == 0:
		return "never"
	}
	lo, hi := slices.Min(seen), slices.Max(seen)
	s := fmtLatency(lo)
	if hi != lo {
		s += "–" + fmtLatency(hi)
	}
	if never > 0 {
		s += fmt.Sprintf(" (never in %d of %d rounds)", never, len(known))
	}
	return s
}
