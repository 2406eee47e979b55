package retry

import (
	"math"
	"strings"
	"time"
)

// maxDeltaSeconds is the largest delta-seconds that fits a Duration.
const maxDeltaSeconds = math.MaxInt64 / int64(time.Second)

// httpDateLayouts are the three HTTP-date forms RFC 9110 §5.6.7 requires a
// recipient to accept, in net/http's ParseTime order: IMF-fixdate, the
// obsolete RFC 850 form and asctime.
var httpDateLayouts = [...]string{
	"Mon, 02 Jan 2006 15:04:05 GMT", // http.TimeFormat
	time.RFC850,
	time.ANSIC,
}

// ParseRetryAfter parses an HTTP Retry-After value (RFC 9110 §10.2.3:
// delta-seconds or an HTTP-date) against now. Surrounding whitespace is
// ignored. It reports false for an empty, malformed or negative value
// ("-1", "1.5", "+3" and garbage). A huge delta-seconds saturates at the
// largest Duration instead of overflowing (callers cap it, as Decide does
// with MaxProviderDelay); an HTTP-date in the past yields 0, true. The
// result is never negative.
func ParseRetryAfter(header string, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(header)
	if v == "" {
		return 0, false
	}
	if c := v[0]; '0' <= c && c <= '9' {
		return parseDeltaSeconds(v)
	}
	for _, layout := range httpDateLayouts {
		if t, err := time.Parse(layout, v); err == nil {
			return max(t.Sub(now), 0), true
		}
	}
	return 0, false
}

// parseDeltaSeconds parses 1*DIGIT, saturating instead of overflowing.
func parseDeltaSeconds(v string) (time.Duration, bool) {
	var secs int64
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if secs <= maxDeltaSeconds { // past it the value only saturates
			secs = secs*10 + int64(c-'0')
		}
	}
	if secs > maxDeltaSeconds {
		return math.MaxInt64, true
	}
	return time.Duration(secs) * time.Second, true
}
