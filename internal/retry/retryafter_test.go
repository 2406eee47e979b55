package retry

import (
	"math"
	"net/http"
	"strings"
	"testing"
	"time"
)

var raNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestParseRetryAfter(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"120", 120 * time.Second, true},
		{"0", 0, true},
		{"  7 ", 7 * time.Second, true},
		{"007", 7 * time.Second, true},
		{"9223372036", 9223372036 * time.Second, true},             // the largest whole-second Duration
		{"9223372037", math.MaxInt64, true},                        // one more saturates
		{"99999999999999999999", math.MaxInt64, true},              // would overflow int64
		{strings.Repeat("9", 5000), math.MaxInt64, true},           // and any length
		{"Sun, 01 Mar 2026 12:02:00 GMT", 2 * time.Minute, true},   // IMF-fixdate
		{"Sunday, 01-Mar-26 12:00:30 GMT", 30 * time.Second, true}, // RFC 850
		{"Sun Mar  1 12:00:05 2026", 5 * time.Second, true},        // asctime
		{"Sun, 01 Mar 2026 11:00:00 GMT", 0, true},                 // in the past
		{"Thu, 01 Jan 1970 00:00:00 GMT", 0, true},
		{"", 0, false},
		{"   ", 0, false},
		{"-1", 0, false},
		{"+5", 0, false},
		{"1.5", 0, false},
		{"5s", 0, false},
		{"12 34", 0, false},
		{"soon", 0, false},
		{"Sun, 01 Mar 2026 12:02:00 PST", 0, false}, // IMF-fixdate is GMT only
		{"2026-03-01T12:02:00Z", 0, false},
		{"\x00", 0, false},
	}
	for _, tc := range cases {
		got, ok := ParseRetryAfter(tc.in, raNow)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzParseRetryAfter checks that no input panics, that results are never
// negative, that a rejection returns 0, and that dates agree with
// net/http's ParseTime.
func FuzzParseRetryAfter(f *testing.F) {
	for _, seed := range []string{"120", "0", "-1", "+1", "1.5", "", " 3 ", "99999999999999999999",
		"9223372037", "Sun, 01 Mar 2026 12:02:00 GMT", "Sunday, 01-Mar-26 12:00:30 GMT",
		"Sun Mar  1 12:00:05 2026", "Thu, 01 Jan 1970 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT",
		"garbage", "\xff\xfe", "0x10", "1e3"} {
		f.Add(seed, raNow.Unix())
	}
	f.Fuzz(func(t *testing.T, header string, nowUnix int64) {
		now := time.Unix(nowUnix, 0)
		d, ok := ParseRetryAfter(header, now)
		if d < 0 {
			t.Fatalf("ParseRetryAfter(%q) = %v: negative", header, d)
		}
		if !ok && d != 0 {
			t.Fatalf("ParseRetryAfter(%q) = %v, false: a rejection must return 0", header, d)
		}
		v := strings.TrimSpace(header)
		if v == "" || ('0' <= v[0] && v[0] <= '9') {
			return
		}
		want, err := http.ParseTime(v)
		if (err == nil) != ok {
			t.Fatalf("ParseRetryAfter(%q) ok=%v but http.ParseTime err=%v", header, ok, err)
		}
		if ok && d != max(want.Sub(now), 0) {
			t.Fatalf("ParseRetryAfter(%q) = %v, want %v", header, d, max(want.Sub(now), 0))
		}
	})
}
