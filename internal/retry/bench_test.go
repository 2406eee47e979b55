package retry

import (
	"net/http"
	"testing"
	"time"

	"github.com/solroute/solroute/retrypolicy"
)

// Decide alone is the baseline for a Call's full cycle (Begin, Next, End).
func BenchmarkDecide(b *testing.B) {
	s := retrypolicy.DefaultSettings()
	a := failing
	b.ReportAllocs()
	for b.Loop() {
		_ = Decide(s, a, Retries{Counted: 1})
	}
}

func BenchmarkCallCycle(b *testing.B) {
	p := New(retrypolicy.DefaultSettings())
	b.ReportAllocs()
	for b.Loop() {
		c := p.Begin()
		_ = c.Next(failing)
		_ = c.Next(failing)
		c.End()
	}
}

// BenchmarkCallCycleParallel measures the budget's atomics under contention.
func BenchmarkCallCycleParallel(b *testing.B) {
	p := New(retrypolicy.DefaultSettings())
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c := p.Begin()
			_ = c.Next(failing)
			c.End()
		}
	})
}

func BenchmarkParseRetryAfterSeconds(b *testing.B) {
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		_, _ = ParseRetryAfter("120", now)
	}
}

func BenchmarkParseRetryAfterDate(b *testing.B) {
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		_, _ = ParseRetryAfter("Sun, 01 Mar 2026 12:02:00 GMT", now)
	}
}

// BenchmarkHTTPParseTime is the baseline for BenchmarkParseRetryAfterDate.
func BenchmarkHTTPParseTime(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, _ = http.ParseTime("Sun, 01 Mar 2026 12:02:00 GMT")
	}
}
