package redislimit

import (
	"testing"
	"time"
)

// TestLocalGCRA steps the fallback bucket through fixed instants: it
// starts empty, refills one token per interval up to its burst, and
// ReadyAt is the first instant a take succeeds, never a nanosecond early.
func TestLocalGCRA(t *testing.T) {
	t0 := epoch
	g := newLocalGCRA(10, 3, t0) // 100 ms a token, 3 at most
	type step struct {
		at     time.Duration
		ok     bool
		ready  time.Duration
		tokens float64
	}
	for i, s := range []step{
		{0, false, 100 * time.Millisecond, 0},
		{99 * time.Millisecond, false, 100 * time.Millisecond, 0.99},
		{100 * time.Millisecond, true, 200 * time.Millisecond, 0},
		{150 * time.Millisecond, false, 200 * time.Millisecond, 0.5},
		{time.Second, true, time.Second, 2}, // full at 3, one taken
		{time.Second, true, time.Second, 1},
		{time.Second, true, 1100 * time.Millisecond, 0},
		{time.Second, false, 1100 * time.Millisecond, 0},
		{10 * time.Second, true, 10 * time.Second, 2},
	} {
		at := t0.Add(s.at)
		if ok := g.takeAt(at); ok != s.ok {
			t.Fatalf("step %d: takeAt = %v, want %v", i, ok, s.ok)
		}
		if got := g.readyAt(at); !got.Equal(t0.Add(s.ready)) {
			t.Fatalf("step %d: readyAt = +%v, want +%v", i, got.Sub(t0), s.ready)
		}
		if got := g.tokensAt(at); got < s.tokens-1e-9 || got > s.tokens+1e-9 {
			t.Fatalf("step %d: tokensAt = %v, want %v", i, got, s.tokens)
		}
		if ready := g.readyAt(at); ready.After(at) && g.clone().takeAt(ready.Add(-1)) {
			t.Fatalf("step %d: a take succeeds before readyAt", i)
		}
	}
}

// clone copies the bucket, to try a take without spending.
func (g *localGCRA) clone() *localGCRA { c := *g; return &c }

// TestLocalGCRAExtremes: rates far below one an hour and bursts near the
// largest int neither overflow nor admit what they should not.
func TestLocalGCRAExtremes(t *testing.T) {
	slow := newLocalGCRA(1e-30, 1, epoch)
	if slow.takeAt(epoch.Add(1000 * time.Hour)) {
		t.Error("a rate of 1e-30/s admitted within 1000 h")
	}
	if !slow.readyAt(epoch).After(epoch.Add(1000 * time.Hour)) {
		t.Error("readyAt of a rate of 1e-30/s is near")
	}
	wide := newLocalGCRA(1e9, 1<<31-1, epoch)
	if !wide.takeAt(epoch.Add(time.Second)) {
		t.Error("a rate of 1e9/s refused after a second")
	}
}
