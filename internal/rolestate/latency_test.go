package rolestate

import (
	"math"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
)

// sample admits one request at t0+at and observes its end at t0+end.
func sample(t *testing.T, r *Runtime, at, end time.Duration, failed bool) {
	t.Helper()
	a, b, ok := r.AdmitAt(t0.Add(at), time.Time{})
	if !ok {
		t.Fatalf("admission refused: %v", b.Reason)
	}
	r.ObserveAt(t0.Add(end), a, failed)
	r.Release(a)
}

func near(got, want time.Duration) bool {
	return math.Abs(float64(got-want)) <= float64(time.Microsecond)
}

func TestLatencyPeakThenBlendThenDecay(t *testing.T) {
	r := newRuntime(t, endpoint.Limits{}, Options{})
	if r.LatencyAt(t0) != 0 || r.CostAt(t0) != 0 {
		t.Fatal("an idle role with no sample has a cost")
	}
	sample(t, r, 0, 10*ms(1), false)
	if got := r.LatencyAt(t0.Add(ms(10))); !near(got, ms(10)) {
		t.Fatalf("first sample: %v, want 10ms", got)
	}
	// A higher sample replaces the estimate at once (peak).
	sample(t, r, ms(10), ms(110), false)
	if got := r.LatencyAt(t0.Add(ms(110))); !near(got, ms(100)) {
		t.Fatalf("after a 100 ms sample: %v, want the peak", got)
	}
	// A lower sample one decay time later blends with weight e^-1.
	sample(t, r, ms(1110), ms(1110), false)
	want := time.Duration(100e6 * math.Exp(-1))
	if got := r.LatencyAt(t0.Add(ms(1110))); !near(got, want) {
		t.Fatalf("blend: %v, want %v", got, want)
	}
	// With no sample, the estimate decays on read, by e^-1 per decay time.
	if got := r.LatencyAt(t0.Add(ms(1110) + LatencyDecay)); !near(got, time.Duration(float64(want)*math.Exp(-1))) {
		t.Fatalf("decay: %v", got)
	}
}

func TestFailureIsAHeavySample(t *testing.T) {
	r := newRuntime(t, endpoint.Limits{}, Options{})
	sample(t, r, 0, ms(1), true) // a fast failure
	if got := r.LatencyAt(t0.Add(ms(1))); !near(got, FailurePenalty) {
		t.Fatalf("after a 1 ms failure: %v, want the %v penalty", got, FailurePenalty)
	}
	sample(t, r, ms(1), ms(1)+3*time.Second, true) // a slow one keeps its length
	if got := r.LatencyAt(t0.Add(ms(1) + 3*time.Second)); !near(got, 3*time.Second) {
		t.Fatalf("after a 3 s failure: %v", got)
	}
}

// TestCostWeighsLoadAndAge: cost = max(estimate, mean in-flight age) ×
// (in flight + 1); with no sample, one request in flight is enough to
// make a role the last choice.
func TestCostWeighsLoadAndAge(t *testing.T) {
	r := newRuntime(t, endpoint.Limits{}, Options{})
	a, _, _ := r.AdmitAt(t0, time.Time{})
	if got := r.CostAt(t0); got != unsampledCost {
		t.Fatalf("unsampled with one in flight: %v", got)
	}
	r.ObserveAt(t0.Add(ms(2)), a, false)
	r.Release(a)
	at := ms(2)
	b, _, _ := r.AdmitAt(t0.Add(at), time.Time{})
	c, _, _ := r.AdmitAt(t0.Add(at), time.Time{})
	// Estimate 2 ms, two in flight, just admitted: 2 ms × 3.
	if got := r.CostAt(t0.Add(at)); !near(time.Duration(got), ms(6)) {
		t.Fatalf("cost %v, want 6ms", time.Duration(got))
	}
	// 500 ms later, still no answer: the requests' age (500 ms) outweighs
	// the decayed estimate.
	if got := r.CostAt(t0.Add(at + ms(500))); !near(time.Duration(got), 3*ms(500)) {
		t.Fatalf("cost with old requests in flight %v, want 1.5s", time.Duration(got))
	}
	r.Release(b)
	r.Release(c)
	if r.starts.Load() != 0 {
		t.Fatalf("in-flight starts not back to 0: %d", r.starts.Load())
	}
}
