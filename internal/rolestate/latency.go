package rolestate

import (
	"math"
	"sync/atomic"
	"time"
)

// The latency side of a Runtime, for the pool's balancing inside a tier
// (plans/008-balancing.md): a peak-EWMA estimate of the role's attempt
// latency (finagle's PeakEwma, tower's and linkerd2-proxy's), the
// admission instants of the requests in flight, and a cost that weighs
// both by the load.

// Constants of the estimate. They are the plan's choices, not settings.
const (
	// LatencyDecay is the estimate's time constant: a sample below the
	// estimate is blended in with weight 1 - e^(-Δt/LatencyDecay), and an
	// estimate with no new sample decays toward 0 with the same constant,
	// computed on read. At 1 s a peer that went from 300 ms back to 1 ms
	// regains its share within about five seconds (finagle's 10 s would
	// take about a minute); a Solana slot is 400 ms and providers degrade
	// and recover on that scale.
	LatencyDecay = time.Second
	// FailurePenalty is the least sample a failure by the endpoint's own
	// doing records (a reset, a 5xx, a timeout, an answer overtaken by its
	// hedge): a fast failure must not look fast (linkerd2-proxy's penalty
	// EWMA; eRPC keeps hard errors out of latency for the same reason).
	FailurePenalty = time.Second
	// unsampledCost is the cost of a role with requests in flight and no
	// sample yet: one probe at a time until the first answer (finagle's
	// Penalty), so that no data never ranks fastest.
	unsampledCost = float64(time.Hour)
)

// latency is the peak-EWMA estimate. It takes no lock: every call's
// outcome writes it (plans/015-call-cost.md, "Second pass"). Readers load
// est and at (a reader may pair a new estimate with an old instant for a
// moment, which only shifts one projection slightly); see observe for
// writers.
type latency struct {
	est     atomic.Uint64 // math.Float64bits of the estimate, in ns
	at      atomic.Int64  // when est was last written, ns since the epoch
	sampled atomic.Bool
	// ok and failed are the decayed counts of the observed outcomes
	// (ErrorDecay), both decayed to at: their ratio
	// is the recent error rate whenever it is read.
	ok, failed atomicFloat
}

// ErrorDecay is the time constant of a role's error rate: each observed
// outcome counts e^(-age/ErrorDecay), so the rate is that of about the
// last ten seconds, as the latency histograms' (HistogramDecay).
const ErrorDecay = 10 * time.Second

// decayed returns the estimate projected to n (ns since the epoch): est ×
// e^(-Δt/LatencyDecay), without writing.
func (l *latency) decayed(n int64) float64 {
	est := math.Float64frombits(l.est.Load())
	if dt := n - l.at.Load(); dt > 0 {
		est *= math.Exp(-float64(dt) / float64(LatencyDecay))
	}
	return est
}

// observe records a sample s at n: above the projected estimate it
// replaces it (peak), below it blends in with the weight of the time since
// the last write.
//
// Concurrent writers each claim the interval from the last write to their
// own instant (at moves forward by compare-and-swap, so each stretch of
// time is claimed once) and apply its decay to what they find: a writer
// whose instant is not after the last write's decays nothing and, below
// the estimate, blends in with weight 0, as a sample at the same instant
// does when serialised. A sample written between another writer's claim
// and its decay is decayed once more than its due, by at most that
// writer's interval: one sample's weight in the error rate, and the
// estimate as it would be had the two come in the other order.
func (l *latency) observe(n int64, s float64, failed bool) {
	sampled := l.sampled.Load()
	dt := l.claim(n)
	f, w := 1.0, 1.0
	if dt > 0 && sampled {
		f = math.Exp(-float64(dt) / float64(ErrorDecay))
		w = math.Exp(-float64(dt) / float64(LatencyDecay))
	}
	if failed {
		l.failed.decayAdd(f, 1)
		l.ok.decayAdd(f, 0)
	} else {
		l.ok.decayAdd(f, 1)
		l.failed.decayAdd(f, 0)
	}
	for {
		bits := l.est.Load()
		old, est := math.Float64frombits(bits), s
		if sampled && s < old {
			est = old*w + s*(1-w)
		}
		if l.est.CompareAndSwap(bits, math.Float64bits(est)) {
			break
		}
	}
	l.sampled.Store(true)
}

// claim moves at forward to n and returns by how much (0 when at is
// already at or after n).
func (l *latency) claim(n int64) int64 {
	for {
		last := l.at.Load()
		if n <= last {
			return 0
		}
		if l.at.CompareAndSwap(last, n) {
			return n - last
		}
	}
}

// ObserveAt records that an attempt admitted at a ended at now: a sample
// of its elapsed time, raised to FailurePenalty when failed is set (the
// endpoint's own failure). The pool calls it from Permit.Done; outcomes
// that say nothing of the endpoint (a rate limit, the caller's
// cancellation, the client's own bounds) are not observed.
func (r *Runtime) ObserveAt(now time.Time, a Admission, failed bool) {
	_, n := r.advance(now)
	s := float64(max(n-a.n, 0))
	if failed {
		s = max(s, float64(FailurePenalty))
	}
	r.lat.observe(n, s, failed)
}

// ErrorRate is the share of the role's observed outcomes (those ObserveAt
// records) that were its own failures, each outcome weighted by
// e^(-age/ErrorDecay): about the last ten seconds. 0 before any outcome.
func (r *Runtime) ErrorRate() float64 {
	ok, bad := r.lat.ok.load(), r.lat.failed.load()
	if ok+bad <= 0 {
		return 0
	}
	return bad / (ok + bad)
}

// CostAt is the role's balancing cost at now, lower is better: the
// latency estimate, or the mean age of the requests in flight when that is
// longer (a role that stopped answering looks slow before any of its
// requests times out), times (requests in flight + 1), so that an idle
// slow role is not free. A role with requests in flight and no sample yet
// costs unsampledCost per request in flight. It reads atomics only.
func (r *Runtime) CostAt(now time.Time) float64 {
	_, n := r.peek(now)
	k := r.inFlight.Load()
	if !r.lat.sampled.Load() {
		return unsampledCost * float64(k)
	}
	c := r.lat.decayed(n)
	if k > 0 {
		if age := float64(n) - float64(r.starts.Load())/float64(k); age > c {
			c = age
		}
	}
	return c * float64(k+1)
}

// LatencyAt is the latency estimate projected to now: 0 before any
// sample.
func (r *Runtime) LatencyAt(now time.Time) time.Duration {
	_, n := r.peek(now)
	return time.Duration(r.lat.decayed(n))
}
