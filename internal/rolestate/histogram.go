package rolestate

import (
	"math"
	"math/bits"
	"sync"
	"time"
)

// The recent latency distribution of one method on one (endpoint, role):
// the input of the transport's adaptive attempt timeout and of its
// automatic hedge delay (plans/010-adaptive-timeouts.md). A log-bucket
// histogram whose counts decay exponentially with age, computed on write
// and on read from a stored instant: no goroutine, no timer, no work per
// bucket on the write path.

// Constants of the histogram. They are the plan's choices, not settings.
const (
	// HistogramDecay is the time constant of the decay: a sample of age a
	// weighs e^(-a/HistogramDecay). At 10 s (finagle's peak-EWMA decay
	// default) a hundred answers a second give about a thousand samples'
	// weight, enough for a p99; an endpoint that turns slow shows it in the
	// p99 as soon as its slow answers are 1 % of that weight, and one that
	// turns fast again sheds its slow tail in about 4.6 × HistogramDecay
	// (when the slow samples fall below 1 %): quick to lengthen a timeout,
	// slow to shorten it, the safe way round.
	HistogramDecay = 10 * time.Second
	// MinHistogramWeight is the least decayed weight (about the number of
	// recent answers) a histogram needs before its quantiles are used. At
	// 20 a p99 is in effect the slowest recent answer, which the
	// transport's multiple and floor make safe; below it, the role's
	// other endpoints speak for the endpoint, and with too little there
	// too the transport falls back to its fixed rule.
	MinHistogramWeight = 20
)

// Layout of the buckets: bucket 0 holds [0, 2^histMinShift ns); above it,
// each octave [2^e, 2^(e+1)) is split into histSub equal buckets, up to
// 2^(histMinShift+histOctaves) ns, whose last bucket also holds anything
// longer. The widest bucket is 25 % of its lower bound, and a quantile is
// reported as its bucket's upper bound: it errs long, the safe side for a
// timeout.
const (
	histMinShift = 16 // 65.5 µs
	histSubBits  = 2
	histSub      = 1 << histSubBits
	histOctaves  = 21 // up to 2^37 ns, about 137 s
	histBuckets  = 1 + histOctaves*histSub
	// histRescale is how far (in decay times) the landmark may fall
	// behind a write before the counts are scaled down and the landmark
	// moved: new weights grow as e^(age of the landmark/HistogramDecay),
	// and e^30 keeps them far inside a float64's precision.
	histRescale = 30
)

// bucketOf returns the bucket of a duration of d nanoseconds.
func bucketOf(d int64) int {
	if d < 1<<histMinShift {
		return 0
	}
	e := bits.Len64(uint64(d)) - 1
	if e >= histMinShift+histOctaves {
		return histBuckets - 1
	}
	sub := int(d>>(e-histSubBits)) & (histSub - 1)
	return 1 + (e-histMinShift)*histSub + sub
}

// upperBound returns the end of bucket i (the duration a quantile that
// falls in it is reported as).
func upperBound(i int) time.Duration {
	if i == 0 {
		return 1 << histMinShift
	}
	e := histMinShift + (i-1)/histSub
	sub := (i - 1) % histSub
	return time.Duration(1<<e + (sub+1)<<(e-histSubBits))
}

// Histogram is the decayed latency histogram of one method on one
// (endpoint, role). Decay is forward decay (Cormode, Shkapenyuk,
// Srivastava, Xu, "Forward Decay", ICDE 2009): a sample at t is added
// with weight e^((t-L)/HistogramDecay) for a landmark L, so that older
// samples never need rewriting; reading at now divides by
// e^((now-L)/HistogramDecay), which quantiles do not even need. Every
// method is safe for concurrent use; it holds one mutex per write or
// read, for one exponential and one addition on write.
//
// The zero value is not usable: the Runtime builds them (Runtime.Timing).
type Histogram struct {
	method string
	mu     sync.Mutex
	// landmark is L, in nanoseconds since the Unix epoch; total is the sum
	// of counts.
	landmark int64
	total    float64
	counts   [histBuckets]float64
}

// newHistogram returns an empty histogram of method.
func newHistogram(method string) *Histogram { return &Histogram{method: method} }

// Method returns the method the histogram times.
func (h *Histogram) Method() string { return h.method }

// ObserveAt records a latency d that ended at now.
func (h *Histogram) ObserveAt(now time.Time, d time.Duration) {
	n := now.UnixNano()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.total == 0 {
		h.landmark = n
	}
	age := float64(n-h.landmark) / float64(HistogramDecay)
	if age > histRescale {
		scale := math.Exp(-age)
		for i := range h.counts {
			h.counts[i] *= scale
		}
		h.total *= scale
		h.landmark, age = n, 0
	}
	w := math.Exp(age)
	h.counts[bucketOf(int64(d))] += w
	h.total += w
}

// Summary is a histogram's (or a sum of histograms') quantiles at one
// instant.
type Summary struct {
	// P50, P95 and P99 are the 50th, 95th and 99th percentiles, each
	// reported as the upper bound of its bucket; 0 when Weight is 0.
	P50, P95, P99 time.Duration
	// Weight is the decayed weight of the samples behind them: about the
	// number of answers in the last HistogramDecay, more precisely the sum
	// of e^(-age/HistogramDecay) over every sample.
	Weight float64
}

// SummaryAt returns the histogram's quantiles and weight at now. The
// quantiles are read off the counts as stored (decay scales them all
// alike); only the weight is decayed to now.
func (h *Histogram) SummaryAt(now time.Time) Summary {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.total <= 0 {
		return Summary{}
	}
	s := quantiles(&h.counts, h.total)
	s.Weight = h.total * math.Exp(-float64(now.UnixNano()-h.landmark)/float64(HistogramDecay))
	return s
}

// Sum adds histograms up, each decayed to the same instant: the
// distribution of a role over several endpoints. The zero value is an
// empty sum. A Sum is used by one goroutine.
type Sum struct {
	total  float64
	counts [histBuckets]float64
}

// Add adds h, decayed to now, to the sum.
func (s *Sum) Add(now time.Time, h *Histogram) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.total == 0 {
		return
	}
	scale := math.Exp(-float64(now.UnixNano()-h.landmark) / float64(HistogramDecay))
	for i, c := range h.counts {
		s.counts[i] += c * scale
	}
	s.total += h.total * scale
}

// Summary returns the quantiles and weight of the sum.
func (s *Sum) Summary() Summary {
	if s.total <= 0 {
		return Summary{}
	}
	out := quantiles(&s.counts, s.total)
	out.Weight = s.total
	return out
}

// quantiles returns the p50, p95 and p99 of counts, whose sum is total (> 0),
// as their buckets' upper bounds, walking the buckets once and no further
// than the p99's.
func quantiles(counts *[histBuckets]float64, total float64) Summary {
	var out Summary
	p50, p95, p99 := 0.5*total, 0.95*total, 0.99*total
	var cum float64
	last := 0
	for i, c := range counts {
		if c <= 0 {
			continue
		}
		last = i
		cum += c
		if out.P50 == 0 && cum >= p50 {
			out.P50 = upperBound(i)
		}
		if out.P95 == 0 && cum >= p95 {
			out.P95 = upperBound(i)
		}
		if cum >= p99 {
			out.P99 = upperBound(i)
			return out
		}
	}
	// Rounding left the running sum a hair short of a quantile: the last
	// non-empty bucket holds it.
	if out.P50 == 0 {
		out.P50 = upperBound(last)
	}
	if out.P95 == 0 {
		out.P95 = upperBound(last)
	}
	out.P99 = upperBound(last)
	return out
}
