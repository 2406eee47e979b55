package rolestate

import (
	"math"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// TestRateBucketSteps walks a 10 rps, burst 3 bucket through fixed
// instants: the burst, then one token exactly every 100ms.
func TestRateBucketSteps(t *testing.T) {
	b := NewRateBucket(endpoint.Limits{RequestsPerSecond: 10, BurstCapacity: 3})
	steps := []struct {
		at      time.Duration
		ok      bool
		readyIn time.Duration // ReadyAt - at, after the step
	}{
		{0, true, 0},
		{0, true, 0},
		{0, true, 100 * time.Millisecond},
		{0, false, 100 * time.Millisecond},
		{99 * time.Millisecond, false, time.Millisecond},
		{100 * time.Millisecond, true, 100 * time.Millisecond},
		{150 * time.Millisecond, false, 50 * time.Millisecond},
		{200 * time.Millisecond, true, 100 * time.Millisecond},
		{time.Second, true, 0}, // 8 tokens refilled, capped at 3: 2 left
	}
	for i, s := range steps {
		at := t0.Add(s.at)
		if got := b.TakeAt(at); got != s.ok {
			t.Fatalf("step %d: TakeAt(+%v) = %v, want %v", i, s.at, got, s.ok)
		}
		// The limiter accepts a shortfall that converts to under 1ns, so
		// ReadyAt may be 1ns before the whole-millisecond refill.
		if got := b.ReadyAt(at).Sub(at); got != s.readyIn && got != s.readyIn-time.Nanosecond {
			t.Fatalf("step %d: ReadyAt(+%v) in %v, want %v", i, s.at, got, s.readyIn)
		}
	}
	if got := b.TokensAt(t0.Add(time.Second)); math.Abs(got-2) > 1e-9 {
		t.Errorf("TokensAt = %v, want 2", got)
	}
}

// TestRateBucketReadyAtIsExact checks that at ReadyAt a token is there and
// 1ns before it none is, for rates whose float arithmetic does not land on
// whole nanoseconds.
func TestRateBucketReadyAtIsExact(t *testing.T) {
	for _, rps := range []float64{3, 7, 0.3, 13.7, 999, 1e6} {
		b := NewRateBucket(endpoint.Limits{RequestsPerSecond: rps, BurstCapacity: 1})
		at := t0
		for i := 0; i < 50; i++ {
			if !b.TakeAt(at) {
				t.Fatalf("rps %v, take %d: no token at ReadyAt", rps, i)
			}
			next := b.ReadyAt(at)
			if !next.After(at) {
				t.Fatalf("rps %v: ReadyAt did not move after a take", rps)
			}
			if b.TakeAt(next.Add(-time.Nanosecond)) {
				t.Fatalf("rps %v: a token 1ns before ReadyAt", rps)
			}
			at = next
		}
	}
}

func TestUnlimitedBucket(t *testing.T) {
	b := NewRateBucket(endpoint.Limits{})
	for i := 0; i < 1000; i++ {
		if !b.TakeAt(t0) {
			t.Fatal("unlimited bucket refused")
		}
	}
	if !b.ReadyAt(t0).Equal(t0) || !math.IsInf(b.TokensAt(t0), 1) {
		t.Error("unlimited bucket not always ready")
	}
}
