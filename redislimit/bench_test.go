package redislimit

import (
	"testing"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/redistest"
)

// BenchmarkTakeAt: the cost of one admission from a lease on the hot path
// (the pool calls TakeAt under the role's admission mutex), with the
// leases asked for in the background from a real server. A quota that
// does not bind; the real clock.
func BenchmarkTakeAt(b *testing.B) {
	srv := redistest.Start(b, redistest.Options{})
	clock := clockwork.NewRealClock()
	l, err := New(b.Context(), config.Limits{Backend: config.BackendRedis, URL: endpoint.NewSecret(srv.URL()), KeyPrefix: "bench:", Replicas: 1}, Options{Clock: clock})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	bk := newBucket(l, "a", endpoint.RoleRead, endpoint.Limits{RequestsPerSecond: 1e9, BurstCapacity: 1 << 30}.Normalized())
	taken := 0
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if bk.TakeAt(clock.Now()) {
			taken++
		}
	}
	b.StopTimer()
	st := l.Stats()
	b.ReportMetric(float64(taken)/float64(b.N), "taken/op")
	b.ReportMetric(float64(st.Ops)/float64(max(taken, 1)), "redis-ops/admission")
}
