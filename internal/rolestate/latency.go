package rolestate

import (
	"math"
	"sync"
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

// latency is the peak-EWMA estimate. Writers serialise on mu; readers load
// est and at without it (a reader may pair a new estimate with an old
// instant for a moment, which only shifts one projection slightly).
type latency struct {
	mu      sync.Mutex
	est     atomic.Uint64 // math.Float64bits of the estimate, in ns
	at      atomic.Int64  // when est was last written, ns since the epoch
	sampled atomic.Bool
	// ok and failed are the decayed counts of the observed outcomes
	// (ErrorDecay), as math.Float64bits, both decayed to at: their ratio
	// is the recent error rate whenever it is read.
	ok, failed atomic.Uint64
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
func (l *latency) observe(n int64, s float64, failed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	old, last := math.Float64frombits(l.est.Load()), l.at.Load()
	ok, bad := math.Float64frombits(l.ok.Load()), math.Float64frombits(l.failed.Load())
	if dt := n - last; dt > 0 && l.sampled.Load() {
		f := math.Exp(-float64(dt) / float64(ErrorDecay))
		ok, bad = ok*f, bad*f
	}
	if failed {
		bad++
	} else {
		ok++
	}
	l.ok.Store(math.Float64bits(ok))
	l.failed.Store(math.Float64bits(bad))
	est := s
	if l.sampled.Load() && s < old {
		w := 1.0
		if dt := n - last; dt > 0 {
			w = math.Exp(-float64(dt) / float64(LatencyDecay))
		}
		est = old*w + s*(1-w)
	}
	l.est.Store(math.Float64bits(est))
	if n > last {
		l.at.Store(n)
	}
	l.sampled.Store(true)
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
	ok, bad := math.Float64frombits(r.lat.ok.Load()), math.Float64frombits(r.lat.failed.Load())
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
