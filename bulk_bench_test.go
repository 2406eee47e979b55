package solroute_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"golang.org/x/time/rate"
)

// Figures of BenchmarkBulkInFlight: three endpoints, each configured in
// the client at bulkBenchRate requests a second (burst bulkBenchBurst),
// each enforcing its provider's limit (429 past it) bulkBenchMargin above
// that, as a limit configured from a provider's documentation should be
// (at no margin, the scheduling jitter of a loaded machine brings a
// burst past the server's bucket now and then, and each 429 pauses the
// endpoint), bulkBenchLatency a request.
const (
	bulkBenchKeys    = 1000000
	bulkBenchRate    = 300
	bulkBenchBurst   = 30
	bulkBenchLatency = 30 * time.Millisecond
	bulkBenchMargin  = 1.1
)

// BenchmarkBulkInFlight reads 1 000 000 keys (10 000 chunks) through
// GetMultipleAccountsBulk at caps 8, 16, 32, 64 and 10 000 (no cap: every
// chunk at once), and reports per cap the goodput against the endpoints'
// combined limit (x-limit), the chunks that failed, the requests the
// servers refused (429) and the peak in flight on the servers. Wall
// clock; run with -benchtime=1x.
func BenchmarkBulkInFlight(b *testing.B) {
	for _, inFlight := range []int{8, 16, 32, 64, 10000} {
		b.Run(fmt.Sprintf("cap=%d", inFlight), func(b *testing.B) {
			for range b.N {
				benchBulkOnce(b, inFlight)
			}
		})
	}
}

// benchBulkOnce is one read of BenchmarkBulkInFlight at cap inFlight.
func benchBulkOnce(b *testing.B, inFlight int) {
	b.StopTimer()
	f := newFront(0, 0)
	f.latency = bulkBenchLatency
	f.limited = func() *rate.Limiter { return rate.NewLimiter(bulkBenchRate*bulkBenchMargin, bulkBenchBurst) }
	limits := endpoint.Limits{RequestsPerSecond: bulkBenchRate, BurstCapacity: bulkBenchBurst}
	fx := newLimitedBulkFixture(b, f, bulkBenchKeys, []uint64{0, 0, 0}, make([]fixtures.Script, 3), limits)
	keys := bulkKeys(bulkBenchKeys)
	b.StartTimer()
	start := time.Now()
	res, err := fx.client.GetMultipleAccountsBulk(context.Background(), keys, solroute.BulkOptions{InFlight: inFlight})
	elapsed := time.Since(start)
	b.StopTimer()
	failed := 0
	var be *solroute.BulkError
	if errors.As(err, &be) {
		for _, c := range be.Failed {
			failed += (c.End - c.Start + 99) / 100
		}
	} else if err != nil {
		b.Fatal(err)
	}
	if err == nil {
		checkAccounts(b, res.Value, bulkBenchKeys)
	}
	served := float64(bulkBenchKeys/100 - failed)
	b.ReportMetric(served/elapsed.Seconds()/(3*bulkBenchRate), "x-limit")
	b.ReportMetric(float64(failed), "failed-chunks")
	b.ReportMetric(float64(f.refused.Load()), "refused-429")
	b.ReportMetric(float64(f.peak.Load()), "peak-in-flight")
	b.ReportMetric(elapsed.Seconds(), "s/read")
}
