package admission_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/pool"
	"golang.org/x/time/rate"
)

// The benchmarks use the real clock (Options.Clock nil): the fast path
// reads it once per Acquire, like the baseline reads time.Now once per
// AllowN. Limits are set high enough never to refuse: 1e9 rps (one token
// per nanosecond) and a large concurrency cap, so the slot is a real
// compare-and-swap rather than the unlimited shortcut.
var benchLimits = endpoint.Limits{RequestsPerSecond: endpoint.MaxRequestsPerSecond, MaxConcurrentRequests: 1 << 20}

func benchPool(b *testing.B, n int) *admission.Pool {
	specs := make([]endpoint.Spec, n)
	for i := range specs {
		specs[i] = ep(fmt.Sprintf("ep-%d", i), 0, benchLimits)
	}
	p, err := admission.New(specs, pool.DefaultSettings(), admission.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkBareParts is the baseline: the parts the fast path cannot avoid,
// one AllowN on a rate.Limiter at time.Now plus an atomic slot counter
// taken and given back.
func BenchmarkBareParts(b *testing.B) {
	lim := rate.NewLimiter(rate.Limit(benchLimits.RequestsPerSecond), int(endpoint.MaxRequestsPerSecond))
	var slots atomic.Int64
	b.ReportAllocs()
	for b.Loop() {
		slots.Add(1)
		if !lim.AllowN(time.Now(), 1) {
			b.Fatal("refused")
		}
		slots.Add(-1)
	}
}

// BenchmarkAcquireRelease is the uncontended fast path: one goroutine, one
// endpoint, Acquire then Release.
func BenchmarkAcquireRelease(b *testing.B) { benchAcquire(b, (*admission.Permit).Release) }

// BenchmarkAcquireSuccess is the fast path with an outcome, which reads the
// clock once more.
func BenchmarkAcquireSuccess(b *testing.B) {
	benchAcquire(b, func(pm *admission.Permit) { pm.Done(success()) })
}

// BenchmarkAcquireSuccessTimed is BenchmarkAcquireSuccess for a timed
// request (Request.Timed): the method's histogram is looked up at
// admission and fed in Done. Compare it with BenchmarkAcquireSuccess of
// the same run.
func BenchmarkAcquireSuccessTimed(b *testing.B) {
	req := read
	req.Timed = true
	benchAcquireReq(b, req, func(pm *admission.Permit) { pm.Done(success()) })
}

// benchAcquire acquires from one endpoint and ends each permit with done.
func benchAcquire(b *testing.B, done func(*admission.Permit)) { benchAcquireReq(b, read, done) }

// benchAcquireReq is benchAcquire with request req.
func benchAcquireReq(b *testing.B, req admission.Request, done func(*admission.Permit)) {
	p := benchPool(b, 1)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		pm, err := p.Acquire(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		done(pm)
	}
}

// BenchmarkBarePartsParallel is the parallel baseline: 8 limiters and
// counters, each goroutine rotating over them.
func BenchmarkBarePartsParallel(b *testing.B) {
	type part struct {
		lim   *rate.Limiter
		slots atomic.Int64
		_     [48]byte
	}
	parts := make([]part, 8)
	for i := range parts {
		parts[i].lim = rate.NewLimiter(rate.Limit(benchLimits.RequestsPerSecond), int(endpoint.MaxRequestsPerSecond))
	}
	var next atomic.Uint32
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			pt := &parts[(next.Add(1)-1)%8]
			pt.slots.Add(1)
			if !pt.lim.AllowN(time.Now(), 1) {
				b.Error("refused")
				return
			}
			pt.slots.Add(-1)
		}
	})
}

// BenchmarkAcquireReleaseParallel: every goroutine acquires and releases
// over 8 endpoints of one tier.
func BenchmarkAcquireReleaseParallel(b *testing.B) {
	p := benchPool(b, 8)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			pm, err := p.Acquire(ctx, read)
			if err != nil {
				b.Error(err)
				return
			}
			pm.Release()
		}
	})
}

// BenchmarkPermitLatency is what the transport reads before each timed
// attempt: the permit's recent quantiles (one histogram of 85 buckets,
// walked with atomic loads up to the p99's). Compare it with BenchmarkAcquireSuccess of the
// same run: it is paid once more per timed attempt.
func BenchmarkPermitLatency(b *testing.B) {
	p := benchPool(b, 1)
	req := read
	req.Timed = true
	for range 100 {
		pm, err := p.Acquire(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		pm.Done(success())
	}
	pm, err := p.Acquire(context.Background(), req)
	if err != nil {
		b.Fatal(err)
	}
	defer pm.Release()
	b.ReportAllocs()
	for b.Loop() {
		if l := pm.Latency(); l.Source != admission.LatencyOwn {
			b.Fatalf("latency %+v", l)
		}
	}
}

// BenchmarkTimedCallParallel is what one call of a timed method asks of
// the pool, from 64 callers on one endpoint: acquire, read the latency
// (the adaptive bound), report a success (a histogram and a peak-EWMA
// sample). Every caller writes and reads the same (endpoint, role)'s
// latency record: with a lock there, they queue on it
// (plans/015-call-cost.md, "Second pass").
func BenchmarkTimedCallParallel(b *testing.B) {
	p := benchPool(b, 1)
	req := read
	req.Timed = true
	b.ReportAllocs()
	b.SetParallelism(32) // 64 callers on 2 cores
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			pm, err := p.Acquire(ctx, req)
			if err != nil {
				b.Error(err)
				return
			}
			_ = pm.Latency()
			pm.Done(success())
		}
	})
}
