package rolestate

import (
	"math"
	"time"
)

// Saturating arithmetic for instants and durations. A Runtime keeps
// instants as int64 nanoseconds since its epoch, and a configured duration
// may be as long as the longest time.Duration: a plain sum would wrap into
// the past (a cooldown that has already ended), and a float estimate past
// the int64 range converts to an implementation-defined value. These
// helpers clamp to the far future or the far past instead.

// addSat returns a + b, clamped to [math.MinInt64, math.MaxInt64] instead of
// wrapping around.
func addSat(a, b int64) int64 {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}

// floatDuration converts ns, a number of nanoseconds, to a Duration,
// truncating toward zero and clamping values outside the Duration range to
// the longest (or most negative) Duration. NaN counts as the longest: it
// only comes from a rate or a count that cannot be met.
func floatDuration(ns float64) time.Duration {
	switch {
	case ns >= math.Ldexp(1, 63) || math.IsNaN(ns):
		return math.MaxInt64
	case ns <= -math.Ldexp(1, 63):
		return math.MinInt64
	}
	return time.Duration(ns)
}
