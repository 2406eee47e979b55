package solroute_test

import (
	"context"
	"testing"
	"time"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
)

// TestBulkAdaptiveCapFollowsThePool: with InFlight 0 the cap is the
// rule's on the endpoints' configured limits and the pool's latency
// estimates, BulkResult.InFlight says it, and the servers never see more
// chunks in flight (the gate holds requests until the cap is reached:
// a cap not kept shows as a peak above it); a cap the user sets wins. An
// adaptive cap starts at most at 32 and is asked again after 32 chunks.
// The client runs on a fake clock that does not move, so every latency
// it measures is 0 (no estimate: the 100 ms prior) and its buckets, one
// burst of 10 000, never refill.
func TestBulkAdaptiveCapFollowsThePool(t *testing.T) {
	paced := endpoint.Limits{RequestsPerSecond: 100, BurstCapacity: 10000}
	for _, tc := range []struct {
		name        string
		limits      endpoint.Limits
		inFlight    int
		start, want int
	}{
		{"3 x 100/s, no estimate: 1.25 x 3 x 100 x 100 ms, from a start of 32", paced, 0, 32, 38},
		{"3 x 5 in flight: their sum", endpoint.Limits{MaxConcurrentRequests: 5}, 0, 15, 15},
		{"unlimited: 32", endpoint.Limits{}, 0, 32, 32},
		{"the user's 8 wins", paced, 8, 8, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 20000
			f := newFront(tc.start, 1)
			fx := bulkFixtureOf(t, f, n, []uint64{0, 0, 0}, make([]fixtures.Script, 3), tc.limits, true)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a stuck gate fails, not hangs
			defer cancel()
			res, err := fx.client.GetMultipleAccountsBulk(ctx, bulkKeys(n), solroute.BulkOptions{InFlight: tc.inFlight})
			if err != nil {
				t.Fatal(err)
			}
			checkAccounts(t, res.Value, n)
			if p := f.peak.Load(); res.InFlight != tc.want || p < int64(tc.start) || p > int64(tc.want) {
				t.Errorf("cap %d, peak in flight at the servers %d: want cap %d, peak %d..%d", res.InFlight, p, tc.want, tc.start, tc.want)
			}
			if got := f.requests.Load(); got != n/100 {
				t.Errorf("%d requests for %d chunks", got, n/100)
			}
		})
	}
}
