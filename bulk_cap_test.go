package solroute

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/solroute/solroute/internal/admission"
)

// TestBulkAdaptiveCapRule holds adaptiveCap to its rule, one row a case
// of it: rate × latency with the headroom, the prior, each endpoint's
// concurrency cap, the unlimited share, the clamps.
func TestBulkAdaptiveCapRule(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	three := func(c admission.Capacity) []admission.Capacity { return []admission.Capacity{c, c, c} }
	for _, tc := range []struct {
		name string
		cs   []admission.Capacity
		want int
	}{
		{"3 x 300/s at 30 ms: 1.25 x 27", three(admission.Capacity{RequestsPerSecond: 300, Latency: ms(30)}), 34},
		{"3 x 100/s at 80 ms: 1.25 x 24", three(admission.Capacity{RequestsPerSecond: 100, Latency: ms(80)}), 30},
		{"3 x 1000/s at 10 ms", three(admission.Capacity{RequestsPerSecond: 1000, Latency: ms(10)}), 38},
		{"3 x 500/s at 80 ms (a provider plan)", three(admission.Capacity{RequestsPerSecond: 500, Latency: ms(80)}), 150},
		{"no answer yet: the 100 ms prior", three(admission.Capacity{RequestsPerSecond: 300}), 113},
		{"5 x 10/s at 112 ms: 7 (a float a hair over), not 8", []admission.Capacity{
			{RequestsPerSecond: 10, Latency: ms(112)}, {RequestsPerSecond: 10, Latency: ms(112)}, {RequestsPerSecond: 10, Latency: ms(112)},
			{RequestsPerSecond: 10, Latency: ms(112)}, {RequestsPerSecond: 10, Latency: ms(112)}}, 7},
		{"public endpoints, 10/s: the floor", three(admission.Capacity{RequestsPerSecond: 10, Latency: ms(100)}), 4},
		{"an estimate decayed while idle: the floor, until asked again", three(admission.Capacity{RequestsPerSecond: 300, Latency: ms(1)}), 4},
		{"10 x 500/s at 100 ms: the ceiling", func() []admission.Capacity {
			cs := make([]admission.Capacity, 10)
			for i := range cs {
				cs[i] = admission.Capacity{RequestsPerSecond: 500, Latency: ms(100)}
			}
			return cs
		}(), 256},
		{"unlimited: 32 shared", three(admission.Capacity{}), 32},
		{"concurrency caps only: their sum", three(admission.Capacity{MaxConcurrentRequests: 5}), 15},
		{"rate x latency above the concurrency cap: the caps' sum", three(admission.Capacity{RequestsPerSecond: 300, MaxConcurrentRequests: 8, Latency: ms(100)}), 24},
		{"one rated, one unlimited: 1.25 x 9 + 16", []admission.Capacity{{RequestsPerSecond: 300, Latency: ms(30)}, {}}, 28},
		{"caps summing under the floor: their sum", []admission.Capacity{{MaxConcurrentRequests: 1}, {MaxConcurrentRequests: 1}}, 2},
		{"3 x 100/s at 88 ms, burst 10: the bursts' sum, not 33", three(admission.Capacity{RequestsPerSecond: 100, BurstCapacity: 10, Latency: ms(88)}), 30},
		{"no endpoint", nil, 4},
	} {
		if got := adaptiveCap(tc.cs); got != tc.want {
			t.Errorf("%s: cap %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestBulkAdaptiveCapAskedAgain: an adaptive cap is asked again as the
// call runs: a call that starts at 4 (a cold pool) and learns 8, then 16
// has 16 chunks in flight, never more than the cap it last raised to,
// and every chunk read once. The asks are held until the cap's worth is in flight
// (once per cap), so a cap never asked again shows as a call stuck at 4.
func TestBulkAdaptiveCapAskedAgain(t *testing.T) {
	const chunks = 200
	var asked, inFlight, peak, over atomic.Int64
	var mu sync.Mutex
	gates := map[int]chan struct{}{4: make(chan struct{}), 8: make(chan struct{}), 16: make(chan struct{})}
	capNow := 0
	capOf := func() int {
		mu.Lock()
		defer mu.Unlock()
		capNow = min(4<<(asked.Add(1)-1), 16)
		return capNow
	}
	read := make([]atomic.Int32, chunks)
	ask := func(ctx context.Context, lo, _ int, _ uint64) (uint64, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		mu.Lock()
		c := capNow
		g := gates[c]
		if int(n) > c {
			over.Add(1)
		}
		if int(n) == c && g != nil {
			close(g)
			delete(gates, c)
		}
		mu.Unlock()
		if g != nil {
			select {
			case <-g:
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}
		read[lo].Add(1)
		return 0, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a stuck run fails, not hangs
	defer cancel()
	b := &bulkCall{method: "test", n: chunks, size: 1, capOf: capOf, ask: ask}
	r, err := b.run(ctx)
	if err != nil {
		t.Fatalf("run: %v (peak %d: the cap was not raised)", err, peak.Load())
	}
	if r.inflight != 16 || peak.Load() != 16 || over.Load() != 0 {
		t.Errorf("reported cap %d, peak in flight %d, %d asks above the cap: want 16, 16, 0", r.inflight, peak.Load(), over.Load())
	}
	for i := range read {
		if n := read[i].Load(); n != 1 {
			t.Fatalf("chunk %d read %d times", i, n)
		}
	}
}
