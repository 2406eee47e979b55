package config

import (
	"strconv"
	"strings"
	"time"
)

// The duration pattern of schema.json is generated here from maxDuration
// and durationUnits, so that the schema and the parser cannot drift apart:
// TestSchemaDurationPattern compares it with the schema, and
// TestDurationPatternAgreesWithTheParser runs both on many strings.

// durationPattern is the regular expression of a duration of the
// document: one or more components, each a number no larger than limit in
// its unit, with no more decimals than the unit allows. It cannot bound
// the sum of several components.
func durationPattern(limit time.Duration) string {
	var units []string
	for _, u := range durationUnits() {
		if u.name == "µs" || u.name == "μs" {
			continue // written with "us" below
		}
		name := u.name
		if u.name == "us" {
			name = "(?:us|µs|μs)"
		}
		units = append(units, "(?:"+boundedNumber(int64(limit/u.size), u.decimals)+")"+name)
	}
	return "^(?:" + strings.Join(units, "|") + ")+$"
}

// boundedNumber is the regular expression of a decimal number from 0 to
// bound (leading zeros allowed) with at most decimals digits after the
// point: any fraction below bound, only zeros at bound.
func boundedNumber(bound int64, decimals int) string {
	frac := func(digits string) string {
		if decimals == 0 {
			return `(?:\.)?`
		}
		return `(?:\.` + digits + `{0,` + strconv.Itoa(decimals) + `})?`
	}
	below := "0"
	if bound > 1 {
		below = "(?:0|" + intRange(bound-1) + ")"
	}
	alts := []string{
		"0*" + below + frac("[0-9]"),
		"0*" + strconv.FormatInt(bound, 10) + frac("0"),
	}
	if decimals > 0 {
		alts = append(alts, `\.[0-9]{1,`+strconv.Itoa(decimals)+`}`)
	}
	return strings.Join(alts, "|")
}

// intRange is the regular expression of the integers from 1 to n, without
// leading zeros.
func intRange(n int64) string {
	digits := strconv.FormatInt(n, 10)
	var alts []string
	if len(digits) > 1 {
		alts = append(alts, "[1-9]"+repeatDigits(0, len(digits)-2))
	}
	for i := range len(digits) {
		lo := byte('0')
		if i == 0 {
			lo = '1'
		}
		rest := len(digits) - i - 1
		if strings.Trim(digits[i+1:], "9") == "" {
			// Every number with this prefix and a digit up to digits[i]
			// is in range, n itself included.
			alts = append(alts, digits[:i]+digitClass(lo, digits[i])+repeatDigits(rest, rest))
			break
		}
		if digits[i] > lo {
			alts = append(alts, digits[:i]+digitClass(lo, digits[i]-1)+repeatDigits(rest, rest))
		}
	}
	return strings.Join(alts, "|")
}

// digitClass matches one digit from lo to hi.
func digitClass(lo, hi byte) string {
	if lo == hi {
		return string(lo)
	}
	return "[" + string(lo) + "-" + string(hi) + "]"
}

// repeatDigits is "[0-9]{min,max}", simplified.
func repeatDigits(lo, hi int) string {
	switch {
	case hi == 0:
		return ""
	case lo == hi && lo == 1:
		return "[0-9]"
	case lo == hi:
		return "[0-9]{" + strconv.Itoa(lo) + "}"
	}
	return "[0-9]{" + strconv.Itoa(lo) + "," + strconv.Itoa(hi) + "}"
}
