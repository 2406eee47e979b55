package dashshot

import (
	"math"
	"strconv"
	"time"
)

// Axis is a value axis: the range it spans and its ticks.
type Axis struct {
	// Min and Max are the values at the bottom and top.
	Min, Max float64
	// Ticks are the values labelled, from Min up, each a multiple of one
	// nice step (1, 2, 2.5 or 5 times a power of ten).
	Ticks []float64
}

// Pos returns where v falls on an axis drawn from bottom to top (pixel
// coordinates, bottom > top), clamped to the axis.
func (a Axis) Pos(v, bottom, top float64) float64 {
	f := (v - a.Min) / (a.Max - a.Min)
	f = min(max(f, 0), 1)
	return bottom + f*(top-bottom)
}

// ValueAxis returns the axis of values from lo to hi with about n ticks,
// at least minStep apart (0: any step; 1 for a panel showing no
// decimals). fixedMin and fixedMax, when not nil, are the panel's own
// bounds; the others are rounded out to a tick. No data (lo > hi) draws
// 0 to 1, and a flat line a range of one step around it.
func ValueAxis(lo, hi float64, fixedMin, fixedMax *float64, n int, minStep float64) Axis {
	if lo > hi {
		lo, hi = 0, 1
	}
	if fixedMin != nil {
		lo = *fixedMin
		hi = max(hi, lo)
	}
	if fixedMax != nil {
		hi = *fixedMax
		lo = min(lo, hi)
	}
	if hi == lo {
		if fixedMin != nil || lo == 0 {
			hi = lo + 1
		} else {
			lo, hi = lo-math.Abs(lo)*0.1, hi+math.Abs(hi)*0.1
		}
	}
	step := niceStep(max((hi-lo)/float64(max(n, 1)), minStep))
	a := Axis{Min: lo, Max: hi}
	if fixedMin == nil {
		a.Min = math.Floor(lo/step+1e-9) * step
	}
	if fixedMax == nil {
		a.Max = math.Ceil(hi/step-1e-9) * step
	}
	for i := math.Ceil(a.Min/step - 1e-9); i*step <= a.Max+step*1e-9; i++ {
		a.Ticks = append(a.Ticks, roundTo(i*step, step))
	}
	return a
}

// niceStep returns the smallest of 1, 2, 2.5, 5 and 10 times a power of
// ten that is at least x (x > 0).
func niceStep(x float64) float64 {
	if x <= 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, f := range []float64{1, 2, 2.5, 5, 10} {
		if f*p >= x*(1-1e-9) {
			return f * p
		}
	}
	return 10 * p
}

// roundTo removes the float noise of v, a multiple of step.
func roundTo(v, step float64) float64 {
	digits := max(0, -int(math.Floor(math.Log10(step)))+2)
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// FormatOffset writes an offset from the start of a run for a time axis:
// "45s" up to two minutes, then "2m", "2m30s", "1h".
func FormatOffset(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < 2*time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d%time.Hour == 0:
		return strconv.Itoa(int(d/time.Hour)) + "h"
	case d < time.Hour && d%time.Minute == 0:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	}
	return d.String()
}

// TimeTicks returns the offsets from the start of a span of length span
// to label on a time axis: multiples of the smallest of 1 s, 2 s, 5 s, 10
// s, 15 s, 30 s, 1, 2, 5, 10, 15, 30 min and 1 h that gives at most n
// ticks.
func TimeTicks(span time.Duration, n int) []time.Duration {
	step := time.Hour
	for _, s := range []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second,
		15 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute,
		10 * time.Minute, 15 * time.Minute, 30 * time.Minute} {
		if span/s+1 <= time.Duration(max(n, 1)) {
			step = s
			break
		}
	}
	var out []time.Duration
	for t := time.Duration(0); t <= span; t += step {
		out = append(out, t)
	}
	return out
}
