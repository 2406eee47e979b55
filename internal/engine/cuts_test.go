package engine

import (
	"sync"
	"testing"
	"time"
)

func TestCutCounterSuspendsOnAShareOfCuts(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Truncate(cutsWindow)
	var c cutCounter
	// step adds bounded attempts, cut of them cut, at t0+at, then checks
	// suspended.
	type step struct {
		at          time.Duration
		bounded     int
		cut         int
		wantSuspend bool
	}
	for i, st := range []step{
		{at: 0, wantSuspend: false},
		// Seven cuts of seven: too few to mean anything.
		{at: 0, bounded: 7, cut: 7, wantSuspend: false},
		// The eighth: 8 of 8.
		{at: 100 * time.Millisecond, bounded: 1, cut: 1, wantSuspend: true},
		// 8 of 40: a fifth, under the quarter.
		{at: 200 * time.Millisecond, bounded: 32, wantSuspend: false},
		// 11 of 43: just over.
		{at: 300 * time.Millisecond, bounded: 3, cut: 3, wantSuspend: true},
		// The next window still counts the previous one.
		{at: cutsWindow + 500*time.Millisecond, wantSuspend: true},
		// Two windows on, it is forgotten, and its slot is reused afresh.
		{at: 2 * cutsWindow, wantSuspend: false},
		{at: 2 * cutsWindow, bounded: 4, cut: 4, wantSuspend: false},
	} {
		now := t0.Add(st.at)
		for j := range st.bounded {
			c.add(now, j < st.cut)
		}
		if got := c.suspended(now); got != st.wantSuspend {
			t.Fatalf("step %d at %v: suspended %v, want %v", i, st.at, got, st.wantSuspend)
		}
	}
}

func TestCutCounterConcurrently(t *testing.T) {
	// Under -race: concurrent writers within one window lose nothing.
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Truncate(cutsWindow)
	var c cutCounter
	c.add(t0, false) // the window's first write resets its slot
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				c.add(t0, true)
			}
		})
	}
	wg.Wait()
	if n := c.slots[(t0.UnixNano()/int64(cutsWindow))&1].n.Load(); n != 801<<32|800 {
		t.Fatalf("counts %d bounded, %d cut; want 801 and 800", n>>32, n&(1<<32-1))
	}
}
