package rolestate

import (
	"math"
	"math/bits"
	"sync/atomic"
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
// e^((now-L)/HistogramDecay), which quantiles do not even need.
//
// Every method is safe for concurrent use and takes no lock: every call
// of a timed method writes its histogram and reads it (the adaptive
// attempt timeout), so a mutex here serialised every caller of one
// (endpoint, role) (plans/015-call-cost.md, "Second pass"). A write is
// one exponential and two atomic additions; see bank for what a reader
// concurrent with writers sees.
//
// The zero value is not usable: the Runtime builds them (Runtime.Timing).
type Histogram struct {
	method string
	// cur is the bank written to; nil before the first sample.
	cur atomic.Pointer[bank]
}

// newHistogram returns an empty histogram of method.
func newHistogram(method string) *Histogram { return &Histogram{method: method} }

// Method returns the method the histogram times.
func (h *Histogram) Method() string { return h.method }

// ObserveAt records a latency d that ended at now.
func (h *Histogram) ObserveAt(now time.Time, d time.Duration) {
	n := now.UnixNano()
	b := h.cur.Load()
	if b == nil {
		// The first sample sets the landmark, unless another first
		// sample did: then it is written to that one's bank.
		h.cur.CompareAndSwap(nil, &bank{landmark: n})
		b = h.cur.Load()
	}
	age := float64(n-b.landmark) / float64(HistogramDecay)
	if age > histRescale {
		b = h.rescale(b, n)
		age = float64(n-b.landmark) / float64(HistogramDecay)
	}
	w := math.Exp(age)
	// The total first: a reader between the two sees a sample it cannot
	// place, and errs long (see bank).
	b.total.add(w)
	b.counts[bucketOf(int64(d))].add(w)
}

// rescale moves the landmark of b, which is behind n by more than
// histRescale decay times, to n: a new bank with b's counts scaled down,
// swapped in unless another writer did it first. It returns the bank to
// write to.
func (h *Histogram) rescale(b *bank, n int64) *bank {
	nb := &bank{landmark: n}
	scale := math.Exp(-float64(n-b.landmark) / float64(HistogramDecay))
	for i := range b.counts {
		nb.counts[i].store(b.counts[i].load() * scale)
	}
	nb.total.store(b.total.load() * scale)
	if h.cur.CompareAndSwap(b, nb) {
		return nb
	}
	return h.cur.Load()
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
	b := h.cur.Load()
	if b == nil {
		return Summary{}
	}
	total := b.total.load()
	if total <= 0 {
		return Summary{}
	}
	s, ok := quantiles(func(i int) float64 { return b.counts[i].load() }, total)
	if ok {
		s.Weight = total * math.Exp(-float64(now.UnixNano()-b.landmark)/float64(HistogramDecay))
	}
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
	b := h.cur.Load()
	if b == nil {
		return
	}
	total := b.total.load()
	if total == 0 {
		return
	}
	scale := math.Exp(-float64(now.UnixNano()-b.landmark) / float64(HistogramDecay))
	for i := range b.counts {
		s.counts[i] += b.counts[i].load() * scale
	}
	s.total += total * scale
}

// Summary returns the quantiles and weight of the sum.
func (s *Sum) Summary() Summary {
	if s.total <= 0 {
		return Summary{}
	}
	out, ok := quantiles(func(i int) float64 { return s.counts[i] }, s.total)
	if ok {
		out.Weight = s.total
	}
	return out
}

// quantiles returns the p50, p95 and p99 of the counts count(0) ...
// count(histBuckets-1), whose sum is total (> 0), as their buckets' upper
// bounds, walking the buckets once and no further than the p99's. ok is
// false, and the Summary empty, when no bucket holds anything: a reader
// that saw the first samples in the total and in no bucket yet (bank)
// has nothing to place, and the shortest bucket would err short.
func quantiles(count func(i int) float64, total float64) (_ Summary, ok bool) {
	var out Summary
	p50, p95, p99 := 0.5*total, 0.95*total, 0.99*total
	var cum float64
	last := -1
	for i := range histBuckets {
		c := count(i)
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
			return out, true
		}
	}
	if last < 0 {
		return Summary{}, false
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
	return out, true
}
