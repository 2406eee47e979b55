package retry

import (
	"math"
	"testing"
	"time"

	"github.com/solroute/solroute/retrypolicy"
)

func TestBackoffCeilings(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name string
		s    retrypolicy.Settings
		want []time.Duration // ceiling before counted retry 0, 1, 2, ...
	}{
		{"defaults", retrypolicy.DefaultSettings(), []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 2000 * ms, 2000 * ms}},
		{"initial above max", retrypolicy.Settings{InitialBackoff: 5 * time.Second, MaxBackoff: time.Second}, []time.Duration{time.Second, time.Second}},
		{"max not a power of two step", retrypolicy.Settings{InitialBackoff: 30 * ms, MaxBackoff: 100 * ms}, []time.Duration{30 * ms, 60 * ms, 100 * ms, 100 * ms}},
		{"initial zero", retrypolicy.Settings{MaxBackoff: time.Second}, []time.Duration{0, 0}},
		{"max zero", retrypolicy.Settings{InitialBackoff: time.Second}, []time.Duration{0, 0}},
		{"zero settings", retrypolicy.Settings{}, []time.Duration{0, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			for n, want := range tc.want {
				if got := backoffCeiling(&s, n); got != want {
					t.Fatalf("ceiling after %d counted retries = %v, want %v", n, got, want)
				}
			}
		})
	}
}

func TestBackoffNoOverflow(t *testing.T) {
	s := retrypolicy.Settings{InitialBackoff: time.Second, MaxBackoff: math.MaxInt64}
	prev := time.Duration(0)
	for n := 0; n < 200; n++ {
		c := backoffCeiling(&s, n)
		if c < prev || c <= 0 {
			t.Fatalf("ceiling %d = %v after %v: overflowed", n, c, prev)
		}
		prev = c
	}
	if prev != math.MaxInt64 {
		t.Fatalf("ceiling never reached MaxBackoff: %v", prev)
	}
	d := retrypolicy.DefaultSettings()
	if got := backoffCeiling(&d, math.MaxInt); got != d.MaxBackoff {
		t.Fatalf("ceiling after MaxInt retries = %v, want %v", got, d.MaxBackoff)
	}
}

// TestDecideBackoffJitter drives Decide with exact jitter sources and checks
// each delay is the source's answer for the right ceiling.
func TestDecideBackoffJitter(t *testing.T) {
	a := Input{Outcome: retrypolicy.Outcome{Cause: retrypolicy.Timeout, Dispatch: retrypolicy.MaybeDispatched}, Class: retrypolicy.Idempotent, TimeLeft: noDeadline}
	var asked []time.Duration
	half := func(c time.Duration) time.Duration { asked = append(asked, c); return c / 2 }
	s := defaults(half)
	s.MaxRetries = 7
	want := []time.Duration{50, 100, 200, 400, 800, 1000, 1000}
	for n, w := range want {
		d := Decide(s, a, Retries{Counted: n})
		if !d.Retry || d.Delay != w*time.Millisecond {
			t.Fatalf("retry %d: got %+v, want delay %v", n, d, w*time.Millisecond)
		}
		if asked[n] != 2*w*time.Millisecond {
			t.Fatalf("retry %d: jitter asked for ceiling %v, want %v", n, asked[n], 2*w*time.Millisecond)
		}
	}
}

func TestJitterClamped(t *testing.T) {
	for _, tc := range []struct {
		name   string
		source func(time.Duration) time.Duration
		want   time.Duration
	}{
		{"negative", func(time.Duration) time.Duration { return -time.Hour }, 0},
		{"above ceiling", func(c time.Duration) time.Duration { return 3 * c }, time.Second},
		{"zero", func(time.Duration) time.Duration { return 0 }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := defaults(tc.source)
			if got := jitter(&s, time.Second); got != tc.want {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
	called := false
	s := defaults(func(time.Duration) time.Duration { called = true; return 1 })
	if got := jitter(&s, 0); got != 0 || called {
		t.Fatalf("zero ceiling: got %v, source called=%v; want 0 without a draw", got, called)
	}
}

func TestUniformJitterRange(t *testing.T) {
	for _, ceiling := range []time.Duration{1, 2, time.Millisecond, time.Second, math.MaxInt64} {
		var sawLow bool
		for range 2000 {
			d := uniformJitter(ceiling)
			if d < 0 || d > ceiling {
				t.Fatalf("ceiling %v: draw %v out of range", ceiling, d)
			}
			sawLow = sawLow || d <= ceiling/2
		}
		if !sawLow {
			t.Fatalf("ceiling %v: 2000 draws, none in the lower half", ceiling)
		}
	}
	for _, c := range []time.Duration{0, -1} {
		if d := uniformJitter(c); d != 0 {
			t.Fatalf("ceiling %v: got %v, want 0", c, d)
		}
	}
}
