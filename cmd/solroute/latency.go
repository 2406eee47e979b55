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
	switch {
	case d <= 0:
		return "0"
	case d >= 100*time.Second:
		return d.Round(time.Second).String()
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= 100*time.Millisecond:
		return d.Round(time.Millisecond).String()
	case d >= 10*time.Millisecond:
		return d.Round(100 * time.Microsecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}
