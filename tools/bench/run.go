package bench

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/solroute/solroute/fixtures"
)

// Report is the result of a Run.
type Report struct {
	// Settings are the normalised options the run used (Progress aside).
	Callers     int
	Calls       int
	Rounds      int
	SendEvery   int
	CallTimeout time.Duration
	CellTimeout time.Duration
	Seed        uint64
	Isolate     bool
	// Command is the command line that produced the report, shown in the
	// Markdown; cmd/solroute-bench sets it. Empty means not shown.
	Command string
	// Environment describes the machine: Go version, GOOS/GOARCH and
	// GOMAXPROCS.
	Environment string
	// Clients and Scenarios are the names run, in order.
	Clients   []string
	Scenarios []string
	// Cells holds one Cell per (scenario, client), scenario-major, each
	// the Rounds measures of that cell pooled.
	Cells []Cell
}

// Cell returns the named cell, or nil.
func (r *Report) Cell(scenario, client string) *Cell {
	for i := range r.Cells {
		if c := &r.Cells[i]; c.Scenario == scenario && c.Client == client {
			return c
		}
	}
	return nil
}

// Run measures every client of o in every scenario of o, one cell after
// the other, and returns the report. Per scenario it runs o.Rounds rounds;
// round r measures every client once, in the order roundOrder gives, and
// the report pools each cell's rounds (see Options.Rounds). It stops at
// the first error (an unknown client or scenario, a cluster that cannot
// start) or when ctx ends, returning the scenarios finished so far.
func Run(ctx context.Context, opts Options) (*Report, error) {
	o := opts.normalized()
	kinds, err := lookUp(o.Clients, clientNamed)
	if err != nil {
		return nil, err
	}
	scs, err := lookUp(o.Scenarios, scenarioNamed)
	if err != nil {
		return nil, err
	}
	txs, err := transactions(o.sends(o.Calls))
	if err != nil {
		return nil, err
	}
	r := &Report{
		Callers: o.Callers, Calls: o.Calls, Rounds: o.Rounds, SendEvery: o.SendEvery,
		CallTimeout: o.CallTimeout, CellTimeout: o.CellTimeout, Seed: o.Seed, Isolate: o.Isolate,
		Environment: fmt.Sprintf("%s %s/%s, GOMAXPROCS=%d", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0)),
		Clients:     o.Clients,
		Scenarios:   o.Scenarios,
	}
	for _, sc := range scs {
		// rounds[i] collects client i's measures, in round order.
		rounds := make([][]Cell, len(kinds))
		for rd := range o.Rounds {
			for _, i := range roundOrder(rd, len(kinds)) {
				k := kinds[i]
				if err := ctx.Err(); err != nil {
					return r, err
				}
				cell, err := runCell(ctx, &o, sc, k, txs)
				if err != nil {
					return r, fmt.Errorf("bench: %s / %s, round %d: %w", sc.name, k.name, rd+1, err)
				}
				rounds[i] = append(rounds[i], cell)
				fmt.Fprintf(o.Progress, "%-13s %-14s %-10s %s\n", sc.name, k.name, fmt.Sprintf("round %d/%d", rd+1, o.Rounds), progressLine(&cell))
			}
		}
		for i, k := range kinds {
			cell := poolRounds(rounds[i])
			r.Cells = append(r.Cells, cell)
			if o.Rounds > 1 {
				fmt.Fprintf(o.Progress, "%-13s %-14s %-10s %s\n", sc.name, k.name, fmt.Sprintf("%d rounds", o.Rounds), progressLine(&cell))
			}
		}
	}
	return r, nil
}

// roundOrder returns the order in which round (0-based) measures k
// clients: client indexes starting at round mod k and wrapping around.
func roundOrder(round, k int) []int {
	order := make([]int, k)
	for j := range order {
		order[j] = (round + j) % k
	}
	return order
}

// progressLine prints a cell's figures on one line.
func progressLine(c *Cell) string {
	line := fmt.Sprintf("%7.0f calls/s (steady %7.0f)  success %7.3f%%  p50 %8s  p99 %8s  p99.9 %8s  allocs/call %6.1f  cpu/call %6s  ambiguous %d  duplicates %d  requests %s  back in time %d/%d",
		c.Goodput(), c.SteadyGoodput(), 100*c.SuccessRate(),
		round(c.Percentile(0.5)), round(c.Percentile(0.99)), round(c.Percentile(0.999)),
		c.AllocsPerCall(), round(c.CPUPerCall()), c.Ambiguous, c.Duplicates, fmtShares(c), c.BackInTime, c.SlotReads)
	if c.Lags() {
		line += fmt.Sprintf("  from a %d (%d once known)  answered by a %d  known after %s",
			c.LaggingReads, c.LaggingReadsKnown, c.LaggingAnswered, fmtKnown(c.RoundLagKnown))
	}
	return line
}

// lookUp resolves every name, in order, stopping at the first unknown one.
func lookUp[T any](names []string, named func(string) (T, error)) ([]T, error) {
	out := make([]T, len(names))
	for i, name := range names {
		var err error
		if out[i], err = named(name); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// transactions builds n signed transactions with distinct signatures, base64
// wire bytes; every cell sends the same ones to its own fresh cluster.
func transactions(n int) ([]string, error) {
	txs := make([]string, n)
	for i := range txs {
		tx, err := fixtures.SignedTransaction(uint64(i)+1, "")
		if err != nil {
			return nil, err
		}
		if txs[i], err = fixtures.EncodeTransaction(tx); err != nil {
			return nil, err
		}
	}
	return txs, nil
}

// round shortens a latency for display: 3 significant digits.
func round(d time.Duration) time.Duration {
	switch {
	case d >= 100*time.Millisecond:
		return d.Round(time.Millisecond)
	case d >= 10*time.Millisecond:
		return d.Round(100 * time.Microsecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	case d >= 100*time.Microsecond:
		return d.Round(time.Microsecond)
	}
	return d.Round(100 * time.Nanosecond)
}
