package rolestate

import (
	"math"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
)

// maxDuration is the longest time.Duration.
const maxDuration = time.Duration(math.MaxInt64)

func TestAddSat(t *testing.T) {
	for _, tt := range []struct{ a, b, want int64 }{
		{1, 2, 3},
		{-1, -2, -3},
		{math.MaxInt64, 1, math.MaxInt64},
		{math.MaxInt64 - 5, 10, math.MaxInt64},
		{int64(time.Hour), int64(maxDuration), math.MaxInt64},
		{math.MinInt64, -1, math.MinInt64},
		{math.MinInt64 + 5, -10, math.MinInt64},
		{math.MaxInt64, math.MinInt64, -1},
	} {
		if got := addSat(tt.a, tt.b); got != tt.want {
			t.Errorf("addSat(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestFloatDuration(t *testing.T) {
	for _, tt := range []struct {
		ns   float64
		want time.Duration
	}{
		{0, 0},
		{1.9, 1},
		{-1.9, -1},
		{1e18, 1e18},
		{math.Ldexp(1, 63), maxDuration},
		{1e30, maxDuration},
		{math.Inf(1), maxDuration},
		{math.NaN(), maxDuration},
		{-1e30, math.MinInt64},
		{math.Inf(-1), math.MinInt64},
	} {
		if got := floatDuration(tt.ns); got != tt.want {
			t.Errorf("floatDuration(%g) = %d, want %d", tt.ns, got, tt.want)
		}
	}
}

// TestRateBucketTinyRate: a rate so low that one token takes longer than
// the longest time.Duration to refill. ReadyAt must still answer an instant
// after t (far in the future), never t itself or an instant before: a
// caller that waits until ReadyAt and tries again would otherwise spin.
func TestRateBucketTinyRate(t *testing.T) {
	for _, rps := range []float64{1e-10, 1e-11, 1e-15, 1e-300, math.SmallestNonzeroFloat64} {
		b := NewRateBucket(endpoint.Limits{RequestsPerSecond: rps})
		if !b.TakeAt(t0) {
			t.Fatalf("rps %g: the full bucket refused its one token", rps)
		}
		for _, at := range []time.Time{t0, t0.Add(time.Hour), t0.Add(100 * 24 * time.Hour)} {
			ready := b.ReadyAt(at)
			if !ready.After(at) {
				t.Fatalf("rps %g: ReadyAt(%v) = %v, want an instant after it", rps, at, ready)
			}
			if ready.Sub(at) < 100*365*24*time.Hour {
				t.Errorf("rps %g: ReadyAt(%v) only %v later; one token takes longer than a Duration holds", rps, at, ready.Sub(at))
			}
			if b.TakeAt(at) {
				t.Fatalf("rps %g: a token at %v", rps, at)
			}
		}
	}
}

// TestRateBucketSlowRateIsExact: rates whose refill still fits a Duration
// (one token in about 31 years, 3 years, 1 day) keep an exact ReadyAt.
func TestRateBucketSlowRateIsExact(t *testing.T) {
	for _, rps := range []float64{1e-9, 1e-8, 1.0 / 86400} {
		b := NewRateBucket(endpoint.Limits{RequestsPerSecond: rps})
		if !b.TakeAt(t0) {
			t.Fatalf("rps %g: the full bucket refused its one token", rps)
		}
		ready := b.ReadyAt(t0)
		if !ready.After(t0) || !b.TakeAt(ready) {
			t.Fatalf("rps %g: ReadyAt = +%v and no token there", rps, ready.Sub(t0))
		}
		if want := time.Duration(1 / rps * float64(time.Second)); ready.Sub(t0)-want > time.Microsecond || want-ready.Sub(t0) > time.Microsecond {
			t.Errorf("rps %g: ReadyAt = +%v, want about +%v", rps, ready.Sub(t0), want)
		}
	}
}

// TestTinyRateWaiterDoesNotSpin: a caller that waits until Block.Until
// after every refusal (as the pool does) reaches its deadline after one
// refusal for the rate, instead of being told to try again at once.
func TestTinyRateWaiterDoesNotSpin(t *testing.T) {
	counting := &countingReadyBucket{Bucket: NewRateBucket(endpoint.Limits{RequestsPerSecond: 1e-12})}
	r := newRuntime(t, endpoint.Limits{RequestsPerSecond: 1e-12, MaxConcurrentRequests: 1}, Options{Bucket: counting})
	if _, _, ok := r.AdmitAt(t0, time.Time{}); !ok {
		t.Fatal("the first admission was refused")
	}
	r.Release(Admission{})
	now, deadline := t0, t0.Add(time.Hour)
	var refusals int
	for ; refusals < 100; refusals++ {
		_, b, ok := r.AdmitAt(now, deadline)
		if ok {
			t.Fatalf("admitted at +%v with an empty bucket", now.Sub(t0))
		}
		if b.Reason == BlockedByDeadline {
			break
		}
		if b.Reason != BlockedByRate || !b.Until.After(now) {
			t.Fatalf("refusal %d: block %+v at +%v, want a rate block ending after now", refusals, b, now.Sub(t0))
		}
		now = b.Until
	}
	if refusals != 1 {
		t.Errorf("the waiter was refused %d times before its deadline (bucket asked %d times), want 1", refusals, counting.asked)
	}
}

// countingReadyBucket counts ReadyAt calls.
type countingReadyBucket struct {
	Bucket
	asked int
}

func (b *countingReadyBucket) ReadyAt(t time.Time) time.Time {
	b.asked++
	return b.Bucket.ReadyAt(t)
}

// TestHugePauseSaturates: a pause near the longest Duration, from an
// instant well after the Runtime's epoch, cools down until the far future,
// not until an instant that wrapped into the past.
func TestHugePauseSaturates(t *testing.T) {
	for _, pause := range []time.Duration{2562047 * time.Hour, maxDuration} {
		r := newRuntime(t, endpoint.Limits{PauseAfterRateLimit: pause}, Options{})
		at := t0.Add(time.Hour)
		r.RateLimitedAt(at, 0)
		later := at.Add(24 * time.Hour)
		if s := r.StateAt(later); s != endpoint.RateLimited {
			t.Errorf("pause %v: state %v a day later, want rate-limited", pause, s)
		}
		if b := r.ProbeAt(later, time.Time{}); b.Reason != BlockedByCooldown || !b.Until.After(later) {
			t.Errorf("pause %v: block %+v a day later, want a cooldown ending after it", pause, b)
		}
		if s := r.SnapshotAt(later); s.CooldownRemaining < 100*365*24*time.Hour {
			t.Errorf("pause %v: cooldown remaining %v", pause, s.CooldownRemaining)
		}
	}
}

// TestHugeEjectionSaturates: an ejection near the longest Duration, from an
// instant well after the epoch, ejects until the far future.
func TestHugeEjectionSaturates(t *testing.T) {
	r := newRuntime(t, endpoint.Limits{}, Options{Ejection: endpoint.Ejection{After: 1, Base: maxDuration, Max: maxDuration}})
	at := t0.Add(time.Hour)
	a, _, ok := r.AdmitAt(at, time.Time{})
	if !ok {
		t.Fatal("admission refused")
	}
	r.FailedAt(at, a.Generation)
	r.Release(Admission{})
	later := at.Add(24 * time.Hour)
	if s := r.StateAt(later); s != endpoint.Ejected {
		t.Errorf("state %v a day later, want ejected", s)
	}
	if b := r.ProbeAt(later, time.Time{}); b.Reason != BlockedByEjection || !b.Until.After(later) {
		t.Errorf("block %+v a day later, want an ejection ending after it", b)
	}
}

// TestEjectionDurationNeverOverflows: whatever the settings, and however
// many prior ejections, an enabled ejection lasts a positive time no
// longer than max(Max, Base); a disabled one lasts nothing.
func TestEjectionDurationNeverOverflows(t *testing.T) {
	for _, e := range []endpoint.Ejection{
		{After: 1, Base: 1, Max: maxDuration},
		{After: 1, Base: maxDuration, Max: maxDuration},
		{After: 1, Base: maxDuration / 3, Max: maxDuration},
		{After: 1, Base: time.Hour, Max: 1},
		{After: 1, Base: 1, Max: -5},
	} {
		limit := max(e.Max, e.Base)
		for _, prior := range []int{0, 1, 2, 62, 63, 64, 1000, math.MaxInt32, math.MaxInt} {
			if got := ejectionLength(e, prior); got <= 0 || got > limit {
				t.Errorf("%+v.Duration(%d) = %v, want in (0, %v]", e, prior, got, limit)
			}
		}
	}
	for _, e := range []endpoint.Ejection{{}, {Base: -5, Max: -5}, {After: 3, Base: -time.Hour, Max: maxDuration}} {
		if got := ejectionLength(e, 3); got != 0 {
			t.Errorf("%+v.Duration(3) = %v, want 0 (disabled)", e, got)
		}
	}
}

// TestCooldownNeverOverflows: the longest pause and provider delay give
// the pause, the cap or the default, never a wrapped value.
func TestCooldownNeverOverflows(t *testing.T) {
	for _, tt := range []struct {
		pause, provider, want time.Duration
	}{
		{maxDuration, maxDuration, maxDuration},
		{maxDuration, 0, maxDuration},
		{0, maxDuration, maxProviderDelay},
		{math.MinInt64, math.MinInt64, endpoint.Limits{}.Normalized().PauseAfterRateLimit},
	} {
		if got := cooldownOf(endpoint.Limits{PauseAfterRateLimit: tt.pause}, tt.provider); got != tt.want {
			t.Errorf("pause %v: Cooldown(%v) = %v, want %v", tt.pause, tt.provider, got, tt.want)
		}
	}
}
