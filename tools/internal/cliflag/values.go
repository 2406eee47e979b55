package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// valueMessage says why value is not one for fl, and what to write
// instead, by the kind of value the flag holds: "--duration: 5 is not a
// duration: write 5s". Package flag's own text for every kind is "parse
// error", which says neither. err is what fl.Value.Set returned; a value
// of a kind this package does not know keeps its text.
func valueMessage(fl *flag.Flag, value string, err error) string {
	name, shown := "--"+fl.Name, showValue(value)
	var kind any
	if g, ok := fl.Value.(flag.Getter); ok {
		kind = g.Get()
	}
	switch kind.(type) {
	case time.Duration:
		if _, numErr := strconv.ParseFloat(value, 64); numErr == nil {
			return fmt.Sprintf("%s: %s is not a duration: write %ss (a number and a unit: ms, s, m or h)", name, shown, value)
		}
		return fmt.Sprintf("%s: %s is not a duration: write a number and a unit, such as 5s, 1.5s, 500ms or 2m", name, shown)
	case uint64, uint:
		if n, numErr := strconv.ParseInt(value, 0, 64); numErr == nil && n < 0 {
			return fmt.Sprintf("%s: %s is negative: write a whole number, 0 or more", name, shown)
		}
		return wholeNumber(name, shown, value, err, "too large: at most "+strconv.FormatUint(math.MaxUint64, 10))
	case int, int64:
		return wholeNumber(name, shown, value, err,
			fmt.Sprintf("out of range: a whole number from %d to %d", int64(math.MinInt64), int64(math.MaxInt64)))
	case float64:
		return fmt.Sprintf("%s: %s is not a number", name, shown)
	case bool:
		return fmt.Sprintf("%s: %s is not true or false: write %s alone, or %s=false", name, shown, name, name)
	}
	return fmt.Sprintf("invalid value %s for flag %s: %v", shown, name, err)
}

// wholeNumber is the message of a value an integer flag refused: out of
// its range (then it says outOfRange) or not a whole number at all.
func wholeNumber(name, shown, value string, err error, outOfRange string) string {
	if errors.Is(err, strconv.ErrRange) || rangeError(value) {
		return fmt.Sprintf("%s: %s is %s", name, shown, outOfRange)
	}
	return fmt.Sprintf("%s: %s is not a whole number", name, shown)
}

// rangeError reports whether value is a whole number too large for any
// integer flag: package flag reports a range error as "value out of
// range", without wrapping strconv's.
func rangeError(value string) bool {
	_, err := strconv.ParseInt(value, 0, 64)
	if errors.Is(err, strconv.ErrRange) {
		return true
	}
	_, err = strconv.ParseUint(value, 0, 64)
	return errors.Is(err, strconv.ErrRange)
}

// showValue is value as a message shows it: as written when it is made of
// characters that cannot be mistaken for the message's own (letters,
// digits, "+-._:"), quoted otherwise, so that no value can break the
// message's one line.
func showValue(value string) string {
	plain := value != "" && strings.IndexFunc(value, func(r rune) bool {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("+-._:", r):
			return false
		}
		return true
	}) < 0
	if plain {
		return value
	}
	return strconv.Quote(value)
}
