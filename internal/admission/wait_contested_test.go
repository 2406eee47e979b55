package admission_test

import (
	"context"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/pool"
)

// TestContestedBucketBacksOff: a waiter behind a bucket whose ReadyAt says
// now while its TakeAt refuses scans again after a back-off that doubles
// from a nanosecond to a millisecond, never at once without end, and takes
// the token at the first scan after it comes.
func TestContestedBucketBacksOff(t *testing.T) {
	bk := &admission.ContestedBucket{}
	p, tc := newPoolTimersWith(t, func(_ *pool.Settings, o *admission.Options) {
		o.NewBucket = func(*endpoint.Spec, endpoint.Role) pool.Bucket { return bk }
	}, ep("a", 0, endpoint.Limits{RequestsPerSecond: 10, BurstCapacity: 1}))
	req := read
	req.Deadline = t0.Add(time.Second)
	pd := start(context.Background(), p, req)
	var slept time.Duration
	rounds := 0
	for {
		var d time.Duration
		select {
		case d = <-tc.started: // the waiter scanned, and sleeps d
		case <-guard(t).Done():
			t.Fatalf("no timer after %d rounds", rounds)
		}
		rounds++
		if d > time.Millisecond {
			t.Fatalf("round %d: a back-off of %v, past the millisecond", rounds, d)
		}
		if rounds > 60 {
			t.Fatalf("%d rounds in %v of the pool's clock: the waiter scans without backing off (last timer %v)", rounds, slept, d)
		}
		if slept >= 20*time.Millisecond {
			if n := bk.Takes.Load(); n != int64(rounds)+1 { // + Acquire's own try
				t.Errorf("%d TakeAt calls in %d scans", n, rounds)
			}
			bk.Open.Store(true) // while the waiter sleeps
			tc.Advance(d)
			break
		}
		tc.Advance(d)
		slept += d
	}
	pm := pd.permit(t, "a")
	pm.Release()
	t.Logf("%d rounds, %d TakeAt calls, over %v of the pool's clock", rounds, bk.Takes.Load(), slept)
}
