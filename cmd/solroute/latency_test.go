package main

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		out := make([]time.Duration, len(ns))
		for i, n := range ns {
			out[i] = time.Duration(n) * time.Millisecond
		}
		return out
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one", ms(7), 99, 7 * time.Millisecond},
		{"median of four", ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p99 of hundred", ms(func() []int {
			s := make([]int, 100)
			for i := range s {
				s[i] = i + 1
			}
			return s
		}()...), 99, 99 * time.Millisecond},
		{"p100", ms(1, 2, 3), 100, 3 * time.Millisecond},
		{"tiny p", ms(1, 2, 3), 0.001, 1 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentile(tt.sorted, tt.p); got != tt.want {
				t.Fatalf("percentile(%v, %v) = %v, want %v", tt.sorted, tt.p, got, tt.want)
			}
		})
	}
}

func TestShort(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0"},
		{1234 * time.Nanosecond, "1µs"},
		{1234567 * time.Nanosecond, "1.23ms"},
		{12345678 * time.Nanosecond, "12.3ms"},
		{123456789 * time.Nanosecond, "123ms"},
		{1234567890 * time.Nanosecond, "1.23s"},
		{12345678901 * time.Nanosecond, "12.3s"},
		{123456789012 * time.Nanosecond, "2m3s"},
		{-time.Second, "0"},
		{999499 * time.Nanosecond, "999µs"},
		{time.Millisecond, "1ms"},
		{99999 * time.Millisecond, "1m40s"},
		{3600*time.Second + 499*time.Millisecond, "1h0m0s"},
	}
	for _, tt := range tests {
		if got := short(tt.d); got != tt.want {
			t.Errorf("short(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestMilliseconds(t *testing.T) {
	if got := milliseconds(1234567 * time.Nanosecond); got != 1.235 {
		t.Fatalf("milliseconds = %v, want 1.235", got)
	}
}
