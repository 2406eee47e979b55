package config

import (
	"strings"
	"time"
)

// maxDuration is the longest duration the document accepts for any key:
// a timeout, a pause, a backoff, an ejection or a doubt setting. Longer
// is more likely a unit typed wrong ("5000s" for "5000ms") than meant, and
// near the longest time.Duration it would overflow the arithmetic that
// adds it to an instant. It equals the bound every settings type's
// Validate applies to its durations (each unexported in its package;
// TestMaxDurationIsEverySettingsBound holds them to it through Validate).
const maxDuration = time.Hour

// durationUnit is one unit of a document duration and how many decimals a
// number in it may have: one more would be finer than a nanosecond
// (1e-10 m is 6 ns, 1e-11 m under one), so every non-zero digit counts.
type durationUnit struct {
	name     string
	size     time.Duration
	decimals int
}

// durationUnits lists the units of time.ParseDuration, longest name first
// within a prefix ("ms" before "m").
func durationUnits() []durationUnit {
	return []durationUnit{
		{"ns", time.Nanosecond, 0},
		{"us", time.Microsecond, 3},
		{"µs", time.Microsecond, 3}, // U+00B5 micro sign
		{"μs", time.Microsecond, 3}, // U+03BC Greek mu
		{"ms", time.Millisecond, 6},
		{"s", time.Second, 9},
		{"m", time.Minute, 10},
		{"h", time.Hour, 12},
	}
}

// durationSyntax is what a duration string looks like to the document:
// time.ParseDuration's syntax without a sign and without the bare "0",
// and no number finer than a nanosecond.
type durationSyntax uint8

const (
	durationOK durationSyntax = iota
	// durationMalformed: not a sequence of numbers each with a unit.
	durationMalformed
	// durationTooPrecise: a number has more decimals than its unit allows.
	durationTooPrecise
)

// checkDurationSyntax scans s: one or more components, each a decimal
// number (digits, optionally a point and more digits, at least one digit
// in all) and a unit. A unit is the run of characters up to the next digit
// or point, as time.ParseDuration reads it.
func checkDurationSyntax(s string) durationSyntax {
	if s == "" {
		return durationMalformed
	}
	units := durationUnits()
	result := durationOK
	for s != "" {
		i := 0
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		intDigits, decimals := i, 0
		if i < len(s) && s[i] == '.' {
			i++
			for i < len(s) && isDigit(s[i]) {
				i++
				decimals++
			}
		}
		if intDigits+decimals == 0 {
			return durationMalformed
		}
		j := i
		for j < len(s) && !isDigit(s[j]) && s[j] != '.' {
			j++
		}
		unit := s[i:j]
		known := false
		for _, u := range units {
			if u.name == unit {
				known = true
				if decimals > u.decimals {
					result = durationTooPrecise
				}
			}
		}
		if !known {
			return durationMalformed
		}
		s = s[j:]
	}
	return result
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// parseDuration reads a document duration. It reports the value, or a
// message saying what is wrong without quoting s. A leading '-' gives
// negative = true and no value: every caller has its own words for it.
func parseDuration(s string) (d time.Duration, negative bool, problem string) {
	if rest, ok := strings.CutPrefix(s, "-"); ok && checkDurationSyntax(rest) != durationMalformed {
		return 0, true, ""
	}
	switch checkDurationSyntax(s) {
	case durationMalformed:
		return 0, false, `is not a duration: want decimal numbers each with a unit (ns, us, ms, s, m or h), such as "250ms", "5s" or "1m30s"`
	case durationTooPrecise:
		return 0, false, "is finer than a nanosecond: at most 3 decimals in us, 6 in ms, 9 in s, 10 in m, 12 in h, none in ns"
	}
	d, err := time.ParseDuration(s)
	if err != nil || d > maxDuration {
		// After the syntax check, ParseDuration fails only on overflow.
		return 0, false, "must be at most " + shortDuration(maxDuration)
	}
	return d, false, ""
}

// shortDuration prints d without trailing zero units: "1h", not "1h0m0s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
