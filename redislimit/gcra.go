package redislimit

import (
	"math"
	"time"
)

// localGCRA is the fallback bucket: the lease script's GCRA, in process,
// on whole nanoseconds. It is not safe for concurrent use (the bucket's
// mutex guards it) and needs instants that never go backwards in takeAt.
type localGCRA struct {
	// tat is the theoretical arrival time: the instant the bucket is
	// full again (at or before now: full).
	tat time.Time
	// interval is the time per token, rounded up to a nanosecond (so the
	// rate is never above the one asked for); tolerance is burst ×
	// interval.
	interval, tolerance time.Duration
}

// newLocalGCRA returns a bucket of rate tokens per second and burst,
// empty at t (the first token comes one interval later).
func newLocalGCRA(rate float64, burst int, t time.Time) *localGCRA {
	iv := time.Duration(math.Ceil(float64(time.Second) / rate))
	if iv <= 0 || float64(time.Second)/rate > float64(math.MaxInt64)/2 {
		iv = math.MaxInt64 / 2 // a token further away than a Duration can say
	}
	g := &localGCRA{interval: iv, tolerance: satMul(iv, burst)}
	g.empty(t)
	return g
}

// satMul returns d × n, at most the longest Duration.
func satMul(d time.Duration, n int) time.Duration {
	if n > 0 && d > math.MaxInt64/time.Duration(n) {
		return math.MaxInt64
	}
	return d * time.Duration(n)
}

// empty spends every token at t.
func (g *localGCRA) empty(t time.Time) { g.tat = t.Add(g.tolerance) }

// emptyUntil spends every token at t but the part that makes the first
// one come d after t (0 < d ≤ interval; d = interval is empty), and every
// later one an interval after the one before.
func (g *localGCRA) emptyUntil(t time.Time, d time.Duration) {
	g.tat = t.Add(g.tolerance - g.interval + d)
}

// takeAt spends one token at t if there is one.
func (g *localGCRA) takeAt(t time.Time) bool {
	tat := g.tat
	if tat.Before(t) {
		tat = t
	}
	next := tat.Add(g.interval)
	if next.Sub(t) > g.tolerance {
		return false
	}
	g.tat = next
	return true
}

// readyAt returns the first instant at or after t at which takeAt would
// succeed.
func (g *localGCRA) readyAt(t time.Time) time.Time {
	tat := g.tat
	if tat.Before(t) {
		tat = t
	}
	if ready := tat.Add(g.interval - g.tolerance); ready.After(t) {
		return ready
	}
	return t
}

// tokensAt returns the tokens there at t (fractional).
func (g *localGCRA) tokensAt(t time.Time) float64 {
	tat := g.tat
	if tat.Before(t) {
		tat = t
	}
	return max(0, float64(g.tolerance-tat.Sub(t))/float64(g.interval))
}
