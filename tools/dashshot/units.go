package dashshot

import (
	"math"
	"strconv"
	"strings"
)

// scale is how a unit shows values near some magnitude: divided by
// factor, followed by suffix.
type scale struct {
	factor float64
	suffix string
}

// unitScale returns the scale of Grafana unit id unit for values whose
// largest magnitude is ref, as Grafana picks it: seconds as µs, ms, s or
// min; counts and rates with k, M, B; ratios as percents; "none" as they
// are. An id it does not know is written after the value.
func unitScale(unit string, ref float64) scale {
	ref = math.Abs(ref)
	si := func(suffix string) scale {
		switch {
		case ref >= 1e9:
			return scale{1e9, "B" + suffix}
		case ref >= 1e6:
			return scale{1e6, "M" + suffix}
		case ref >= 1e3:
			return scale{1e3, "k" + suffix}
		}
		return scale{1, suffix}
	}
	switch unit {
	case "s":
		switch {
		case ref == 0:
			return scale{1, " s"}
		case ref < 1e-3:
			return scale{1e-6, " µs"}
		case ref < 1:
			return scale{1e-3, " ms"}
		case ref < 60:
			return scale{1, " s"}
		case ref < 3600:
			return scale{60, " min"}
		}
		return scale{3600, " h"}
	case "percentunit":
		return scale{0.01, "%"}
	case "reqps":
		return si(" req/s")
	case "ops":
		return si(" ops/s")
	case "short", "":
		return si("")
	case "none":
		return scale{1, ""}
	}
	return scale{1, " " + unit}
}

// FormatValue writes v in unit (a Grafana unit id) with decimals decimals
// after the point, or, when decimals is negative, three significant
// digits with trailing zeros dropped. NaN and infinities print as
// Grafana prints them.
func FormatValue(unit string, v float64, decimals int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	sc := unitScale(unit, v)
	x := v / sc.factor
	if decimals < 0 {
		return trimZeros(strconv.FormatFloat(x, 'f', sigDecimals(x, 3), 64)) + sc.suffix
	}
	return strconv.FormatFloat(x, 'f', decimals, 64) + sc.suffix
}

// sigDecimals returns the decimals that show x with n significant digits
// (none for a whole number of n digits or more).
func sigDecimals(x float64, n int) int {
	if x == 0 {
		return 0
	}
	return max(0, n-1-int(math.Floor(math.Log10(math.Abs(x)))))
}

// trimZeros drops the trailing zeros of a decimal number, and its point
// when nothing follows it.
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// FormatTicks writes the values of an axis in unit on one scale (that of
// its largest magnitude), with as many decimals as the step between two
// ticks needs, or decimals when it is not negative.
func FormatTicks(unit string, ticks []float64, decimals int) []string {
	ref := 0.0
	for _, t := range ticks {
		ref = max(ref, math.Abs(t))
	}
	sc := unitScale(unit, ref)
	if decimals < 0 {
		decimals = 0
		if len(ticks) > 1 {
			step := math.Abs(ticks[1]-ticks[0]) / sc.factor
			decimals = max(0, -int(math.Floor(math.Log10(step)+1e-9)))
		}
	}
	out := make([]string, len(ticks))
	for i, t := range ticks {
		x := t / sc.factor
		if x == 0 {
			x = 0 // no "-0"
		}
		out[i] = strconv.FormatFloat(x, 'f', decimals, 64) + sc.suffix
	}
	return out
}
