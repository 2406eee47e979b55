package resolve_test

import (
	"context"
	"encoding/base64"
	"slices"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/fixturespec"
	"github.com/solroute/solroute/internal/resolve"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/transport"
)

// BenchmarkFanOutCost compares one sendTransaction through the pool with
// a fan-out of 3 (SendCopies) over three loopback fake send endpoints on
// the real clock, and reports each's p50 and p99 (the target:
// fan-out's own cost ≤ 1 ms p99 over a single send).
func BenchmarkFanOutCost(b *testing.B) {
	l := endpoint.Limits{RequestTimeout: 5 * time.Second}
	members := []fixtures.Member{{Name: "a", Send: &l, Read: &l}, {Name: "b", Send: &l}, {Name: "c", Send: &l}}
	c := fixtures.NewCluster(members)
	defer c.Close()
	p, err := admission.New(fixturespec.Specs(c), pool.DefaultSettings(), admission.Options{})
	if err != nil {
		b.Fatal(err)
	}
	tc, err := engine.New(p, transport.DefaultSettings(), engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer tc.Close()
	tx, err := fixtures.SignedTransaction(1, "")
	if err != nil {
		b.Fatal(err)
	}
	raw, _ := tx.MarshalBinary()
	params := []any{base64.StdEncoding.EncodeToString(raw), map[string]any{"encoding": "base64", "skipPreflight": true}}
	ctx := context.Background()
	for _, k := range []int{1, 3} {
		b.Run(map[int]string{1: "single", 3: "fanout3"}[k], func(b *testing.B) {
			took := make([]time.Duration, 0, b.N)
			for b.Loop() {
				start := time.Now()
				if k == 1 {
					var sig string
					err = tc.CallForInto(ctx, &sig, "sendTransaction", params)
				} else {
					_, err = resolve.SendCopies(ctx, tc, tx, 3, map[string]any{"skipPreflight": true}, nil)
				}
				took = append(took, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
		})
	}
}
