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

// BenchmarkBulkInFlight's figures: 1 000 000 keys (10 000 chunks) over
// three endpoints, each configured in the client at a rate (burst a tenth
// of a second of it) and answering after a latency.
const (
	bulkBenchKeys = 1000000
	// bulkBenchMargin is how far above the client's configured rate the
	// "bucket" servers enforce their limit (429 past it), as a limit
	// configured from a provider's documentation with a margin.
	bulkBenchMargin = 1.1
)

// bulkBenchSetting is one (rate, latency) of the endpoints.
type bulkBenchSetting struct {
	rate    float64
	latency time.Duration
}

// BenchmarkBulkInFlight reads 1 000 000 keys through
// GetMultipleAccountsBulk at a fixed cap of 32 and at the adaptive cap
// (InFlight 0), at three settings of the endpoints' (rate, latency), and
// under two servers' limits: "bucket", a token bucket 10 % above the
// client's rate with the client's burst; "window", exactly the client's
// rate over fixed 1 s windows, as many providers count. It reports the
// goodput against the endpoints' combined limit (x-limit), the chunks
// that failed, the requests the servers refused (429), the peak in
// flight on the servers and the cap the call used. Wall clock; run with
// -benchtime=1x.
func BenchmarkBulkInFlight(b *testing.B) {
	for _, st := range []bulkBenchSetting{{300, 30 * time.Millisecond}, {100, 80 * time.Millisecond}, {1000, 10 * time.Millisecond}} {
		for _, server := range []string{"bucket", "window"} {
			for _, inFlight := range []int{32, 0} {
				name := fmt.Sprintf("rate=%v/latency=%v/server=%s/cap=%d", st.rate, st.latency, server, inFlight)
				b.Run(name, func(b *testing.B) {
					for range b.N {
						benchBulkOnce(b, st, server, inFlight)
					}
				})
			}
		}
	}
}

// benchBulkOnce is one read of BenchmarkBulkInFlight.
func benchBulkOnce(b *testing.B, st bulkBenchSetting, server string, inFlight int) {
	b.StopTimer()
	burst := max(1, int(st.rate/10))
	f := newFront(0, 0)
	f.latency = st.latency
	f.limited = func() allower { return rate.NewLimiter(rate.Limit(st.rate*bulkBenchMargin), burst) }
	if server == "window" {
		f.limited = func() allower { return &window{limit: int(st.rate)} }
	}
	limits := endpoint.Limits{RequestsPerSecond: st.rate, BurstCapacity: burst}
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
	b.ReportMetric(served/elapsed.Seconds()/(3*st.rate), "x-limit")
	b.ReportMetric(float64(failed), "failed-chunks")
	b.ReportMetric(float64(f.refused.Load()), "refused-429")
	b.ReportMetric(float64(f.peak.Load()), "peak-in-flight")
	b.ReportMetric(float64(res.InFlight), "cap")
	b.ReportMetric(elapsed.Seconds(), "s/read")
}
