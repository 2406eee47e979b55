package rolestate

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
)

func TestBucketsCoverEveryDuration(t *testing.T) {
	// Every bucket holds the durations from the previous bucket's upper
	// bound (included) to its own (excluded), and is at most 25 % wide.
	lo := time.Duration(0)
	for i := range histBuckets - 1 {
		hi := upperBound(i)
		if hi <= lo {
			t.Fatalf("bucket %d: upper bound %v not above %v", i, hi, lo)
		}
		if i > 0 && float64(hi-lo) > 0.25*float64(lo)+1 {
			t.Fatalf("bucket %d [%v, %v) wider than 25 %%", i, lo, hi)
		}
		for _, d := range []time.Duration{lo, (lo + hi) / 2, hi - 1} {
			if got := bucketOf(int64(d)); got != i {
				t.Fatalf("%v in bucket %d, want %d [%v, %v)", d, got, i, lo, hi)
			}
		}
		lo = hi
	}
	if got := bucketOf(int64(time.Hour)); got != histBuckets-1 {
		t.Fatalf("1h in bucket %d, want the last", got)
	}
	if got := upperBound(histBuckets - 1); got != 1<<37 {
		t.Fatalf("last upper bound %v, want 2^37 ns", got)
	}
}

// observe records n samples of d at t0+at.
func observe(h *Histogram, at time.Duration, n int, d time.Duration) {
	for range n {
		h.ObserveAt(t0.Add(at), d)
	}
}

// step is one check of a histogram at t0+at.
type step struct {
	at       time.Duration
	p95, p99 time.Duration
	weight   float64
}

func check(t *testing.T, h *Histogram, steps []step) {
	t.Helper()
	for i, st := range steps {
		got := h.SummaryAt(t0.Add(st.at))
		if got.P95 != st.p95 || got.P99 != st.p99 || math.Abs(got.Weight-st.weight) > 1e-6*max(1, st.weight) {
			t.Fatalf("step %d at %v: %+v, want p95 %v p99 %v weight %.4f", i, st.at, got, st.p95, st.p99, st.weight)
		}
	}
}

func TestHistogramQuantiles(t *testing.T) {
	h := newHistogram("getBalance")
	check(t, h, []step{{at: 0}}) // empty: nothing
	// 94 answers at 10 ms, 4 at 100 ms, 2 at 1 s: p95 falls among the
	// 100 ms ones, p99 among the 1 s ones.
	observe(h, 0, 94, ms(10))
	observe(h, 0, 4, ms(100))
	observe(h, 0, 2, time.Second)
	b10, b100, b1s := upperBound(bucketOf(int64(ms(10)))), upperBound(bucketOf(int64(ms(100)))), upperBound(bucketOf(int64(time.Second)))
	check(t, h, []step{
		{at: 0, p95: b100, p99: b1s, weight: 100},
		// Decay changes the weight, never the quantiles of the same samples.
		{at: HistogramDecay, p95: b100, p99: b1s, weight: 100 * math.Exp(-1)},
	})
	if b10 > ms(10)*5/4 || b100 > ms(100)*5/4 || b1s > time.Second*5/4 {
		t.Fatalf("bounds %v %v %v: more than 25 %% above the samples", b10, b100, b1s)
	}
}

func TestHistogramForgetsOldSamples(t *testing.T) {
	// A fast endpoint turns slow: the slow answers show in the p99 as soon
	// as they are 1 % of the weight, and the fast past fades.
	h := newHistogram("getBalance")
	fast, slow := upperBound(bucketOf(int64(ms(5)))), upperBound(bucketOf(int64(ms(300))))
	observe(h, 0, 1000, ms(5))
	check(t, h, []step{{at: 0, p95: fast, p99: fast, weight: 1000}})
	observe(h, 0, 5, ms(300)) // 0.5 %
	check(t, h, []step{{at: 0, p95: fast, p99: fast, weight: 1005}})
	observe(h, 0, 6, ms(300)) // 1.1 %
	check(t, h, []step{{at: 0, p95: fast, p99: slow, weight: 1011}})
	// Ten decay times later, ten slow answers outweigh the thousand fast
	// ones (1000 × e^-10 ≈ 0.05).
	observe(h, 10*HistogramDecay, 10, ms(300))
	w := 1000*math.Exp(-10) + 11*math.Exp(-10) + 10
	check(t, h, []step{{at: 10 * HistogramDecay, p95: slow, p99: slow, weight: w}})
}

func TestHistogramRescalesItsLandmark(t *testing.T) {
	// Writes far apart move the landmark instead of letting the weights
	// grow without bound; the result is the same as without.
	h := newHistogram("getSlot")
	observe(h, 0, 50, ms(2))
	later := (histRescale + 5) * HistogramDecay
	observe(h, later, 30, ms(40))
	b40 := upperBound(bucketOf(int64(ms(40))))
	w := 30 + 50*math.Exp(-float64(histRescale+5))
	check(t, h, []step{{at: later, p95: b40, p99: b40, weight: w}})
	if b := h.cur.Load(); b.landmark != t0.Add(later).UnixNano() {
		t.Fatalf("landmark %d, want the later write's instant", b.landmark)
	}
	if total := h.cur.Load().total.load(); total > 31 {
		t.Fatalf("total %v after rescaling, want about 30", total)
	}
}

func TestSumMergesDecayedHistograms(t *testing.T) {
	// Two endpoints' histograms written at different instants add up as
	// if decayed to the same one.
	a, b := newHistogram("getBalance"), newHistogram("getBalance")
	observe(a, 0, 30, ms(10))
	observe(b, HistogramDecay, 10, ms(200))
	var s Sum
	s.Add(t0.Add(HistogramDecay), a)
	s.Add(t0.Add(HistogramDecay), b)
	s.Add(t0.Add(HistogramDecay), newHistogram("getBalance")) // empty: nothing
	got := s.Summary()
	w := 30*math.Exp(-1) + 10
	b200 := upperBound(bucketOf(int64(ms(200))))
	if math.Abs(got.Weight-w) > 1e-9 || got.P95 != b200 || got.P99 != b200 {
		t.Fatalf("sum %+v, want weight %.3f, p95 = p99 = %v", got, w, b200)
	}
	if (&Sum{}).Summary() != (Summary{}) {
		t.Fatal("an empty sum has quantiles")
	}
}

func TestTimingIsPerMethodAndBounded(t *testing.T) {
	r := newRuntime(t, endpoint.Limits{}, Options{})
	if r.TimingOf("getBalance") != nil {
		t.Fatal("a method never timed has a histogram")
	}
	h := r.Timing("getBalance")
	if h == nil || r.Timing("getBalance") != h || r.TimingOf("getBalance") != h || h.Method() != "getBalance" {
		t.Fatal("Timing does not return one histogram per method")
	}
	if r.Timing("getSlot") == h {
		t.Fatal("two methods share a histogram")
	}
	for i := range MaxTimedMethods - 2 {
		if r.Timing(fmt.Sprintf("m%d", i)) == nil {
			t.Fatalf("method %d refused under the bound", i)
		}
	}
	if r.Timing("one-too-many") != nil || r.TimingOf("one-too-many") != nil {
		t.Fatal("a method past MaxTimedMethods is timed")
	}
	if r.Timing("getBalance") != h {
		t.Fatal("a method already timed is refused at the bound")
	}
}

func TestTimingConcurrently(t *testing.T) {
	// Under -race: concurrent additions and writes agree on one histogram
	// per method.
	r := newRuntime(t, endpoint.Limits{}, Options{})
	done := make(chan *Histogram, 8)
	for i := range 8 {
		go func() {
			h := r.Timing("getBalance")
			h.ObserveAt(t0, ms(i))
			r.Timing(fmt.Sprintf("m%d", i)).ObserveAt(t0, ms(1))
			done <- h
		}()
	}
	first := <-done
	for range 7 {
		if <-done != first {
			t.Fatal("two histograms for one method")
		}
	}
	if w := first.SummaryAt(t0).Weight; w != 8 {
		t.Fatalf("weight %v, want 8 samples", w)
	}
}
