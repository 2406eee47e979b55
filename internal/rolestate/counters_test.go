package rolestate

import (
	"math"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
)

func TestSnapshotCountsRefusalsAndEjections(t *testing.T) {
	r := newRuntime(t, endpoint.Limits{RequestsPerSecond: 1, BurstCapacity: 1, MaxConcurrentRequests: 2}, Options{})
	a, _, ok := r.AdmitAt(t0, time.Time{})
	if !ok {
		t.Fatal("first admission refused")
	}
	if _, b, _ := r.AdmitAt(t0, time.Time{}); b.Reason != BlockedByRate { // one slot left: the bucket is asked first
		t.Fatalf("block %+v, want rate", b)
	}
	r.Release(a)
	s := r.SnapshotAt(t0)
	if s.RefusedByRate != 1 || s.RefusedByLimit != 0 || s.Ejections != 0 {
		t.Fatalf("refused %d/%d, ejections %d; want 1/0, 0", s.RefusedByRate, s.RefusedByLimit, s.Ejections)
	}
	one := newRuntime(t, endpoint.Limits{MaxConcurrentRequests: 1}, Options{})
	if _, _, ok := one.AdmitAt(t0, time.Time{}); !ok {
		t.Fatal("first admission refused")
	}
	one.AdmitAt(t0, time.Time{})
	one.AdmitAt(t0, time.Time{})
	if s := one.SnapshotAt(t0); s.RefusedByLimit != 2 || s.RefusedByRate != 0 {
		t.Fatalf("refused by limit %d, by rate %d; want 2, 0", s.RefusedByLimit, s.RefusedByRate)
	}
	e := newEjector(t, classic)
	e.outcome("fail", "fail", "fail")
	if s := e.r.SnapshotAt(e.now); s.Ejections != 1 || s.State != endpoint.Ejected {
		t.Fatalf("ejections %d state %s, want 1 ejected", s.Ejections, s.State)
	}
}

func TestErrorRateIsRecentAndDecays(t *testing.T) {
	r := newRuntime(t, endpoint.Limits{}, Options{})
	if got := r.SnapshotAt(t0).ErrorRate; got != 0 {
		t.Fatalf("error rate %v before any outcome", got)
	}
	for i := range 3 {
		sample(t, r, 0, ms(1), i == 0) // one failure in three
	}
	if got := r.SnapshotAt(t0).ErrorRate; math.Abs(got-1.0/3) > 1e-9 {
		t.Fatalf("error rate %v, want 1/3", got)
	}
	// One ErrorDecay later, nine successes: the old failure weighs e^-1.
	for range 9 {
		sample(t, r, ErrorDecay, ErrorDecay+ms(1), false)
	}
	w := math.Exp(-float64(ErrorDecay+ms(1)-ms(1)) / float64(ErrorDecay))
	want := w / (3*w + 9)
	if got := r.SnapshotAt(t0.Add(ErrorDecay)).ErrorRate; math.Abs(got-want) > 1e-6 {
		t.Fatalf("error rate %v, want %v", got, want)
	}
}

func TestSnapshotLatencyQuantilesSumTheTimedMethods(t *testing.T) {
	r := newRuntime(t, endpoint.Limits{}, Options{})
	if s := r.SnapshotAt(t0); s.LatencyP50 != 0 || s.LatencyP99 != 0 {
		t.Fatalf("quantiles %v/%v with nothing timed", s.LatencyP50, s.LatencyP99)
	}
	fast, slow := r.Timing("getBalance"), r.Timing("getProgramAccounts")
	for range 90 {
		fast.ObserveAt(t0, ms(2))
	}
	for range 10 {
		slow.ObserveAt(t0, ms(800))
	}
	s := r.SnapshotAt(t0)
	if s.LatencyP50 < ms(2) || s.LatencyP50 > ms(3) || s.LatencyP95 < ms(800) || s.LatencyP99 < ms(800) || s.LatencyP99 > ms(1000) {
		t.Fatalf("p50 %v p95 %v p99 %v; want about 2 ms, 800 ms, 800 ms", s.LatencyP50, s.LatencyP95, s.LatencyP99)
	}
}
