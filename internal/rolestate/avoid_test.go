package rolestate

import (
	"sync"
	"testing"
	"time"
)

func TestAvoidances(t *testing.T) {
	var zero Shared
	zero.AvoidUntil(0, t0.Add(time.Minute)) // no room: nothing
	if zero.AvoidedAt(0, t0) || zero.AvoidedFor(0, t0) != 0 {
		t.Fatal("the zero Shared avoids a method")
	}
	var sh Shared
	sh.KeepAvoidances(2)
	sh.AvoidUntil(1, t0.Add(time.Minute))
	sh.AvoidUntil(1, t0.Add(time.Second)) // shorter: kept at the minute
	for _, tc := range []struct {
		i    int
		at   time.Duration
		want time.Duration
	}{{1, 0, time.Minute}, {1, 59 * time.Second, time.Second}, {1, time.Minute, 0}, {0, 0, 0}, {2, 0, 0}, {-1, 0, 0}} {
		at := t0.Add(tc.at)
		if got := sh.AvoidedFor(tc.i, at); got != tc.want || sh.AvoidedAt(tc.i, at) != (tc.want > 0) {
			t.Errorf("method %d at +%v: avoided for %v (%v), want %v", tc.i, tc.at, got, sh.AvoidedAt(tc.i, at), tc.want)
		}
	}
	// Concurrent writers: the longest wins.
	var wg sync.WaitGroup
	for k := range 50 {
		wg.Go(func() { sh.AvoidUntil(0, t0.Add(time.Duration(k)*time.Second)) })
	}
	wg.Wait()
	if got := sh.AvoidedFor(0, t0); got != 49*time.Second {
		t.Fatalf("after concurrent writers: %v, want 49s", got)
	}
}
