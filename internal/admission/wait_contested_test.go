package admission_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/pool"
)

// contestedBucket is a bucket shared with other processes that take every
// token first: its ReadyAt says now (it cannot know better), its TakeAt
// refuses, until open.
type contestedBucket struct {
	open  atomic.Bool
	takes atomic.Int64
}

func (b *contestedBucket) TakeAt(time.Time) bool {
	b.takes.Add(1)
	return b.open.Load()
}
func (b *contestedBucket) ReadyAt(t time.Time) time.Time { return t }
func (b *contestedBucket) TokensAt(time.Time) float64 {
	if b.open.Load() {
		return 1
	}
	return 0
}

// TestContestedBucketBacksOff: a waiter behind a bucket whose ReadyAt says
// now while its TakeAt refuses scans again after a back-off that doubles
// from a nanosecond to a millisecond, never at once without end, and takes
// the token at the first scan after it comes.
func TestContestedBucketBacksOff(t *testing.T) {
	bk := &contestedBucket{}
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
			if n := bk.takes.Load(); n != int64(rounds)+1 { // + Acquire's own try
				t.Errorf("%d TakeAt calls in %d scans", n, rounds)
			}
			bk.open.Store(true) // while the waiter sleeps
			tc.Advance(d)
			break
		}
		tc.Advance(d)
		slept += d
	}
	pm := pd.permit(t, "a")
	pm.Release()
	t.Logf("%d rounds, %d TakeAt calls, over %v of the pool's clock", rounds, bk.takes.Load(), slept)
}
