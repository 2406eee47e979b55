package bench

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Cell is the measure of one client in one scenario.
type Cell struct {
	Scenario string
	Client   string
	// Made counts the measured calls started (fewer than Options.Calls when
	// the cell hit its CellTimeout); Sends counts the sendTransaction ones.
	Made  int
	Sends int
	// Succeeded, Failed and Ambiguous split Made by outcome. Ambiguous
	// counts sends the client reported as maybe delivered and did not
	// resend (solroute's transport.ErrAmbiguousDispatch); other clients
	// report every failure as failed.
	Succeeded int
	Failed    int
	Ambiguous int
	// SendsSucceeded counts the successful sends.
	SendsSucceeded int
	// Elapsed is the measured phase's duration on the real clock.
	Elapsed time.Duration
	// Mallocs is the process's heap allocations during the measured phase.
	Mallocs uint64
	// Delivered counts sendTransaction requests the servers received, and
	// Duplicates the deliveries acted on beyond the first of each
	// signature (see the package documentation).
	Delivered  int
	Duplicates int
	// Truncated reports that the cell hit its CellTimeout before making
	// Options.Calls calls.
	Truncated bool
	// Latencies holds every measured call's duration, failed calls
	// included, sorted ascending.
	Latencies []time.Duration
}

// Goodput is successful calls per second.
func (c *Cell) Goodput() float64 {
	if c.Elapsed <= 0 {
		return 0
	}
	return float64(c.Succeeded) / c.Elapsed.Seconds()
}

// SuccessRate is Succeeded/Made, 0 when no call was made.
func (c *Cell) SuccessRate() float64 {
	if c.Made == 0 {
		return 0
	}
	return float64(c.Succeeded) / float64(c.Made)
}

// AllocsPerCall is Mallocs/Made.
func (c *Cell) AllocsPerCall() float64 {
	if c.Made == 0 {
		return 0
	}
	return float64(c.Mallocs) / float64(c.Made)
}

// Percentile returns the latency below which a fraction q (0 to 1) of the
// calls fall (nearest rank), 0 when no call was made.
func (c *Cell) Percentile(q float64) time.Duration {
	n := len(c.Latencies)
	if n == 0 {
		return 0
	}
	i := int(q*float64(n)+0.999999) - 1
	return c.Latencies[min(max(i, 0), n-1)]
}

// notMade marks a call index that was claimed but not started.
const notMade outcome = 255

// runCell measures one client in one scenario on a fresh cluster.
func runCell(ctx context.Context, o *Options, sc scenario, kind clientKind, txs []string) (cell Cell, err error) {
	cell = Cell{Scenario: sc.name, Client: kind.name}
	var cl cluster
	if o.Isolate {
		if cl, err = startChildCluster(ctx); err != nil {
			return cell, err
		}
	} else {
		cl = startLocalCluster()
	}
	finished := false
	defer func() {
		if !finished {
			_, _ = cl.finish()
		}
	}()
	c, err := kind.open(cl.urls(), o)
	if err != nil {
		return cell, fmt.Errorf("bench: open client %s: %w", kind.name, err)
	}
	closed := false
	defer func() {
		if !closed {
			c.close()
		}
	}()

	// Warm up on the healthy cluster: connections open, health learnt.
	drive(ctx, o, o.Warmup, o.CellTimeout, func(ctx context.Context, _ int) {
		_ = c.getBalance(ctx)
	})
	if err := cl.apply(sc.name, o.Seed); err != nil {
		return cell, err
	}

	outcomes := make([]outcome, o.Calls)
	for i := range outcomes {
		outcomes[i] = notMade
	}
	lat := make([]time.Duration, o.Calls)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	drive(ctx, o, o.Calls, o.CellTimeout, func(ctx context.Context, i int) {
		t0 := time.Now()
		var err error
		if o.isSend(i) {
			err = c.sendTransaction(ctx, txs[i/o.SendEvery])
		} else {
			err = c.getBalance(ctx)
		}
		lat[i] = time.Since(t0)
		outcomes[i] = outcomeOf(err)
	})
	cell.Elapsed = time.Since(start)
	runtime.ReadMemStats(&after)
	cell.Mallocs = after.Mallocs - before.Mallocs

	c.close()
	closed = true
	counts, err := cl.finish()
	finished = true
	if err != nil {
		return cell, err
	}
	cell.Delivered, cell.Duplicates = counts.Delivered, counts.Duplicates

	cell.Latencies = make([]time.Duration, 0, o.Calls)
	for i, out := range outcomes {
		if out == notMade {
			continue
		}
		cell.Made++
		cell.Latencies = append(cell.Latencies, lat[i])
		send := o.isSend(i)
		if send {
			cell.Sends++
		}
		switch out {
		case succeeded:
			cell.Succeeded++
			if send {
				cell.SendsSucceeded++
			}
		case ambiguous:
			cell.Ambiguous++
		default:
			cell.Failed++
		}
	}
	cell.Truncated = cell.Made < o.Calls
	slices.Sort(cell.Latencies)
	return cell, nil
}

// drive makes calls 0..n-1 from o.Callers goroutines, each call under its
// own CallTimeout, and stops starting calls after limit: an index claimed
// after it is never called.
func drive(ctx context.Context, o *Options, n int, limit time.Duration, call func(context.Context, int)) {
	var next atomic.Int64
	stop := time.Now().Add(limit)
	var wg sync.WaitGroup
	for range o.Callers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil || time.Now().After(stop) {
					return
				}
				cctx, cancel := context.WithTimeout(ctx, o.CallTimeout)
				call(cctx, i)
				cancel()
			}
		})
	}
	wg.Wait()
}
