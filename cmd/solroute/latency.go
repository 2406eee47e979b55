package main

import (
	"math"
	"slices"
	"time"
)

// milliseconds converts d to milliseconds, rounded to the microsecond, for
// JSON output.
func milliseconds(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

// percentile returns the p-th percentile (0 < p <= 100) of sorted by the
// nearest-rank method; 0 when sorted is empty.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// sortedCopy returns ds sorted, leaving ds alone.
func sortedCopy(ds []time.Duration) []time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s
}

// short formats d for tables: three significant digits at most
// ("12.3ms", "1.25s", "850µs").
func short(d time.Duration) string {
	if d <= 0 {
		return "0"
	}
	// One more digit of unit for every tenfold of d from 1ms, up to 1s.
	unit := time.Microsecond
	for limit := time.Millisecond; d >= limit && unit < time.Second; limit *= 10 {
		unit *= 10
	}
	return d.Round(unit).String()
}
