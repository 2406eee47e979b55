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

// Cell is the measure of one client in one scenario. Run measures it once
// per round and reports the rounds pooled (see poolRounds): the counts,
// Elapsed and Mallocs are sums over the rounds, Latencies holds every
// round's calls, and Goodput is the median of the rounds' goodputs.
type Cell struct {
	Scenario string
	Client   string
	// Made counts the measured calls started (fewer than Options.Calls per
	// round when the cell hit its CellTimeout); Sends counts the
	// sendTransaction ones.
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
	// Elapsed is the measured phase's duration on the real clock, summed
	// over the rounds.
	Elapsed time.Duration
	// Mallocs is the process's heap allocations during the measured phase.
	Mallocs uint64
	// CPU is the CPU time, user and system (getrusage), the process used
	// during the measured phase, summed over the rounds; CPURounds counts
	// the rounds it could be read in (none on a system without
	// getrusage). Like Mallocs it is the client's, plus the harness's,
	// when the cluster runs in a child process (Options.Isolate). Unlike
	// goodput it hardly moves when other processes take the cores: it
	// is the cost of a call, not its speed.
	CPU       time.Duration
	CPURounds int
	// Delivered counts sendTransaction requests the servers received, and
	// Duplicates the deliveries acted on beyond the first of each
	// signature (see the package documentation). Every round has a fresh
	// cluster, so these are per-round counts summed.
	Delivered  int
	Duplicates int
	// Requests counts the HTTP requests each endpoint of the cluster
	// received during the measured phase, by endpoint ("a", "b", "c"),
	// summed over the rounds: every attempt the client made, retries and
	// hedges included, whatever the endpoint did with it (answered, hung,
	// refused, reset). See RequestShares.
	Requests []int
	// Truncated reports that the cell hit its CellTimeout before making
	// Options.Calls calls, in CutRounds of its rounds.
	Truncated bool
	// CutRounds counts the rounds whose cell hit its CellTimeout.
	CutRounds int
	// RoundGoodputs holds each round's goodput (successful calls per
	// second), in round order; nil for a single measure that was not
	// pooled.
	RoundGoodputs []float64
	// Steady is the measured phase before its drain, summed over the
	// rounds: from its start to the start of its last call. Until then
	// every caller had a call to make; after it, a caller whose call
	// ends has nothing left to do, and the phase lasts until its slowest
	// remaining call ends, so one call on a slow or hanging endpoint can
	// stretch Elapsed with idle time. SteadySucceeded counts the
	// successful calls that ended within Steady, and RoundSteadyGoodputs
	// holds each round's SteadySucceeded/Steady, in round order (nil for
	// a single measure). See SteadyGoodput.
	Steady              time.Duration
	SteadySucceeded     int
	RoundSteadyGoodputs []float64
	// Latencies holds every measured call's duration, failed calls
	// included, of every round, sorted ascending.
	Latencies []time.Duration

	// SlotReads counts the successful measured reads (getBalance at
	// confirmed commitment) that returned a context slot, and BackInTime
	// those of them that went back in time: a read whose slot is below
	// the highest slot of the reads, warm-up included, that had ended
	// before it started (see the package documentation).
	SlotReads  int
	BackInTime int
	// LaggingReads counts, where endpoint "a" lags (lagging-silent), the
	// successful reads that returned its slot: served by the lagging
	// endpoint and returned to the caller. LaggingReadsKnown counts those
	// of them that started after the client first received an answer
	// from "a" (see RoundLagKnown): once it could know the lag.
	// SlotReadsKnown counts the reads of SlotReads that started then.
	LaggingReads      int
	LaggingReadsKnown int
	SlotReadsKnown    int
	// LaggingAnswered counts, where "a" lags, the getBalance calls "a"
	// answered with a result during the measured phase, counted by the
	// endpoint itself: what it served, whether the client used it or not
	// (a -32016 refusal below a requested minContextSlot is no answer).
	LaggingAnswered int
	// RoundLagKnown holds, where "a" lags, each round's time from the
	// fault to the client's first answer from "a" (a result, or for a
	// client that reports its attempts, solroute, a refusal), in round
	// order; -1 for a round where none came. Nil where nothing lags.
	RoundLagKnown []time.Duration
}

// Lags reports whether the cell's scenario had a lagging endpoint.
func (c *Cell) Lags() bool { return c.RoundLagKnown != nil }

// Goodput is successful calls per second: the median of RoundGoodputs
// (the mean of the middle two for an even count), or Succeeded/Elapsed
// when there are none.
func (c *Cell) Goodput() float64 {
	if len(c.RoundGoodputs) > 0 {
		return median(c.RoundGoodputs)
	}
	if c.Elapsed <= 0 {
		return 0
	}
	return float64(c.Succeeded) / c.Elapsed.Seconds()
}

// SteadyGoodput is successful calls per second before the drain (see
// Steady): the median of RoundSteadyGoodputs, or SteadySucceeded/Steady
// when there are none. It is Goodput without the idle tail of a phase
// whose last calls are slow, the rate a fixed-duration measure would
// count; where every call is fast the two are within a fraction of a
// percent. A phase with no Steady part (one call) falls back to Goodput.
func (c *Cell) SteadyGoodput() float64 {
	if len(c.RoundSteadyGoodputs) > 0 {
		return median(c.RoundSteadyGoodputs)
	}
	if c.Steady <= 0 {
		return c.Goodput()
	}
	return float64(c.SteadySucceeded) / c.Steady.Seconds()
}

// GoodputRange returns the lowest and highest of RoundGoodputs, or
// Goodput twice when there are none.
func (c *Cell) GoodputRange() (lo, hi float64) {
	if len(c.RoundGoodputs) == 0 {
		g := c.Goodput()
		return g, g
	}
	return slices.Min(c.RoundGoodputs), slices.Max(c.RoundGoodputs)
}

// RequestShares returns each endpoint's share of Requests (0 to 1, by
// endpoint, summing to 1), or nil when no endpoint received a request.
func (c *Cell) RequestShares() []float64 {
	total := 0
	for _, n := range c.Requests {
		total += n
	}
	if total == 0 {
		return nil
	}
	s := make([]float64, len(c.Requests))
	for i, n := range c.Requests {
		s[i] = float64(n) / float64(total)
	}
	return s
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

// CPUPerCall is CPU/Made, 0 when no call was made or the CPU time could
// not be read in every round.
func (c *Cell) CPUPerCall() time.Duration {
	if c.Made == 0 || c.CPURounds == 0 || c.CPURounds < len(c.RoundGoodputs) {
		return 0
	}
	return c.CPU / time.Duration(c.Made)
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

// poolRounds merges the rounds of one (scenario, client) cell, in round order,
// into one Cell: goodput per round (RoundGoodputs, whose median is
// Goodput), every count, Elapsed and Mallocs summed, and the latencies of
// every round in one sorted list, so that rates and percentiles are over
// all the calls. Requests are summed endpoint by endpoint; the slot
// figures are summed, and RoundLagKnown concatenated.
func poolRounds(rounds []Cell) Cell {
	var p Cell
	if len(rounds) == 0 {
		return p
	}
	p.Scenario, p.Client = rounds[0].Scenario, rounds[0].Client
	p.RoundGoodputs = make([]float64, 0, len(rounds))
	p.RoundSteadyGoodputs = make([]float64, 0, len(rounds))
	n := 0
	for i := range rounds {
		n += len(rounds[i].Latencies)
	}
	p.Latencies = make([]time.Duration, 0, n)
	for i := range rounds {
		r := &rounds[i]
		p.RoundGoodputs = append(p.RoundGoodputs, r.Goodput())
		p.RoundSteadyGoodputs = append(p.RoundSteadyGoodputs, r.SteadyGoodput())
		p.Steady += r.Steady
		p.SteadySucceeded += r.SteadySucceeded
		p.Made += r.Made
		p.Sends += r.Sends
		p.Succeeded += r.Succeeded
		p.Failed += r.Failed
		p.Ambiguous += r.Ambiguous
		p.SendsSucceeded += r.SendsSucceeded
		p.Elapsed += r.Elapsed
		p.Mallocs += r.Mallocs
		p.CPU += r.CPU
		p.CPURounds += r.CPURounds
		p.Delivered += r.Delivered
		p.Duplicates += r.Duplicates
		if len(p.Requests) < len(r.Requests) {
			p.Requests = append(p.Requests, make([]int, len(r.Requests)-len(p.Requests))...)
		}
		for e, n := range r.Requests {
			p.Requests[e] += n
		}
		if r.Truncated {
			p.CutRounds++
		}
		p.SlotReads += r.SlotReads
		p.BackInTime += r.BackInTime
		p.LaggingReads += r.LaggingReads
		p.LaggingReadsKnown += r.LaggingReadsKnown
		p.SlotReadsKnown += r.SlotReadsKnown
		p.LaggingAnswered += r.LaggingAnswered
		p.RoundLagKnown = append(p.RoundLagKnown, r.RoundLagKnown...)
		p.Latencies = append(p.Latencies, r.Latencies...)
	}
	p.Truncated = p.CutRounds > 0
	slices.Sort(p.Latencies)
	return p
}

// median returns the middle value of xs (the mean of the middle two for
// an even count), 0 for none; xs is not modified.
func median(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// notMade marks a call index that was claimed but not started.
const notMade outcome = 255

// runCell measures one client in one scenario, one round, on a fresh
// cluster.
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
	watch := new(answerWatch)
	c, err := kind.open(cl.urls(), o, watch)
	if err != nil {
		return cell, fmt.Errorf("bench: open client %s: %w", kind.name, err)
	}
	closed := false
	defer func() {
		if !closed {
			c.close()
		}
	}()

	// Warm up on the healthy cluster: connections open, health learnt,
	// slots seen. Every warm-up read ends before the measured phase
	// starts: its highest slot is where the caller's history starts.
	var warmSlot atomic.Uint64
	drive(ctx, o, o.Warmup, o.CellTimeout, func(ctx context.Context, _ int) {
		if s, err := c.getBalance(ctx); err == nil {
			raiseTo(&warmSlot, s)
		}
	})
	warm, err := cl.apply(sc.name, o.Seed)
	if err != nil {
		return cell, err
	}

	outcomes := make([]outcome, o.Calls)
	for i := range outcomes {
		outcomes[i] = notMade
	}
	lat := make([]time.Duration, o.Calls)
	slots := make([]uint64, o.Calls) // each read's context slot
	// Each call's start and end, since the phase's start.
	began, ended := make([]time.Duration, o.Calls), make([]time.Duration, o.Calls)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	cpu0, cpuOK := processCPU()
	start := time.Now()
	watch.arm(start)
	drive(ctx, o, o.Calls, o.CellTimeout, func(ctx context.Context, i int) {
		t0 := time.Now()
		began[i] = t0.Sub(start)
		var err error
		if o.isSend(i) {
			err = c.sendTransaction(ctx, txs[i/o.SendEvery])
		} else {
			slots[i], err = c.getBalance(ctx)
		}
		lat[i] = time.Since(t0)
		ended[i] = began[i] + lat[i]
		outcomes[i] = outcomeOf(err)
	})
	cell.Elapsed = time.Since(start)
	if cpu1, ok := processCPU(); ok && cpuOK {
		cell.CPU, cell.CPURounds = cpu1-cpu0, 1
	}
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
	// The warm-up's requests came before the fault: the measured phase's
	// are the difference.
	cell.Requests = make([]int, clusterSize)
	for e := range cell.Requests {
		cell.Requests[e] = counts.Requests[e] - warm.Requests[e]
	}

	for i, out := range outcomes {
		if out != notMade {
			cell.Steady = max(cell.Steady, began[i])
		}
	}
	cell.Latencies = make([]time.Duration, 0, o.Calls)
	for i, out := range outcomes {
		if out == notMade {
			continue
		}
		if out == succeeded && ended[i] <= cell.Steady {
			cell.SteadySucceeded++
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
	if cell.Truncated {
		cell.CutRounds = 1
	}
	slices.Sort(cell.Latencies)

	var reads []slotRead
	for i, out := range outcomes {
		if out == succeeded && !o.isSend(i) && slots[i] > 0 {
			reads = append(reads, slotRead{began: began[i], ended: ended[i], slot: slots[i]})
		}
	}
	f := measureSlots(reads, warmSlot.Load(), warm.Slots, watch)
	cell.SlotReads, cell.BackInTime = f.reads, f.backInTime
	if newLagLine(warm.Slots).ok {
		cell.LaggingReads, cell.LaggingReadsKnown, cell.SlotReadsKnown = f.lagging, f.laggingKnown, f.readsKnown
		cell.LaggingAnswered = counts.Answered[0]
		cell.RoundLagKnown = []time.Duration{f.known}
	}
	return cell, nil
}

// raiseTo raises m to v when v is higher.
func raiseTo(m *atomic.Uint64, v uint64) {
	for {
		old := m.Load()
		if v <= old || m.CompareAndSwap(old, v) {
			return
		}
	}
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
