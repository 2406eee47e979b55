package metrics_test

import (
	"context"
	"math"
	"sort"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/metrics"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// observingSource is a Source with no endpoint that keeps the Observer
// New adds, so that a test feeds it attempts of known durations.
type observingSource struct{ obs transport.Observer }

func (s *observingSource) Observe(o transport.Observer)   { s.obs = o }
func (s *observingSource) Snapshot() []endpoint.Snapshot  { return nil }
func (s *observingSource) RetryBudget() retrypolicy.Usage { return retrypolicy.Usage{} }

// TestDefaultBucketsResolveLoopback: attempts as fast as loopback's (80
// to 300 µs) and one slow one: the p50 that histogram_quantile reads from
// the default buckets is within 2.5 times the true median, for the
// attempt and the call durations and the admission waits. With buckets
// from 5 ms (before issue 21) every fast attempt fell in the first bucket
// and the p50 read a flat 2.5 ms.
func TestDefaultBucketsResolveLoopback(t *testing.T) {
	src := &observingSource{}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(metrics.New(src, metrics.Options{}))
	call := transport.CallInfo{Method: "getBalance", Known: true, Role: endpoint.RoleRead}
	var durations []time.Duration
	for i := range 497 {
		d := 80*time.Microsecond + time.Duration(i%23)*10*time.Microsecond // 80 to 300 µs
		durations = append(durations, d)
	}
	durations = append(durations, 2*time.Second)
	for _, d := range durations {
		src.obs.AttemptEnded(context.Background(), call, transport.Attempt{Endpoint: "a", Duration: d, Wait: d})
		src.obs.CallEnded(context.Background(), call, transport.CallResult{Duration: d})
	}
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	median := durations[len(durations)/2].Seconds()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"solroute_attempt_duration_seconds", "solroute_call_duration_seconds", "solroute_admission_wait_seconds"} {
		h := histogramOf(t, fams, name)
		p50 := quantile(0.5, h)
		if p50 < median/2.5 || p50 > median*2.5 {
			t.Errorf("%s: p50 reads %.3g s from the buckets, the median is %.3g s", name, p50, median)
		}
		if first := h.GetBucket()[0]; first.GetCumulativeCount() > uint64(len(durations))/2 {
			t.Errorf("%s: %d of %d observations in the first bucket (le %g)", name, first.GetCumulativeCount(), len(durations), first.GetUpperBound())
		}
	}
}

// histogramOf is the one histogram named name in fams.
func histogramOf(t *testing.T, fams []*dto.MetricFamily, name string) *dto.Histogram {
	t.Helper()
	for _, f := range fams {
		if f.GetName() == name && len(f.GetMetric()) == 1 {
			return f.GetMetric()[0].GetHistogram()
		}
	}
	t.Fatalf("no single histogram %s", name)
	return nil
}

// quantile is PromQL's histogram_quantile over one classic histogram:
// the rank's bucket, interpolated linearly from its lower bound (0 for
// the first).
func quantile(q float64, h *dto.Histogram) float64 {
	rank := q * float64(h.GetSampleCount())
	lower, below := 0.0, 0.0
	for _, b := range h.GetBucket() {
		c := float64(b.GetCumulativeCount())
		if c >= rank {
			return lower + (b.GetUpperBound()-lower)*(rank-below)/(c-below)
		}
		lower, below = b.GetUpperBound(), c
	}
	return math.Inf(1)
}
