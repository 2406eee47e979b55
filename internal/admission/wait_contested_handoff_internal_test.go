package admission

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/pool"
)

// ContestedBucket is a bucket shared with other processes that take
// every token first: its ReadyAt says now (it cannot know better), its
// TakeAt refuses, until Open. Exported for this package's external tests
// (a _test.go name: never part of the package).
type ContestedBucket struct {
	Open  atomic.Bool
	Takes atomic.Int64
}

// TakeAt counts the take and succeeds only once Open.
func (b *ContestedBucket) TakeAt(time.Time) bool {
	b.Takes.Add(1)
	return b.Open.Load()
}

// ReadyAt says t: a token may be there.
func (b *ContestedBucket) ReadyAt(t time.Time) time.Time { return t }

// TokensAt is 1 once Open, else 0.
func (b *ContestedBucket) TokensAt(time.Time) float64 {
	if b.Open.Load() {
		return 1
	}
	return 0
}

// gateClock is a fake clock whose NewTimer reports the timer and then
// waits for the test to let it go: between the two the test may look at
// the waiter's state, which nothing else changes.
type gateClock struct {
	*clockwork.FakeClock
	started chan time.Duration
	proceed chan struct{}
}

func (c *gateClock) NewTimer(d time.Duration) clockwork.Timer {
	tm := c.FakeClock.NewTimer(d)
	c.started <- d
	<-c.proceed
	return tm
}

// TestContestedHandOffBacksOff: a waiter behind a contested bucket
// (ReadyAt says now, TakeAt refuses) on an endpoint capped at one request
// is handed the slot a release frees; its scan is refused the token. The
// slot must not come straight back to it (settle passing it on, route
// handing it to the same waiter), or the waiter sets a timer while it
// already holds a wake and scans again at once, without end, on one
// instant of the pool's clock. (A review of stop 33's back-off found it:
// sleep returned on the wake before the back-off applied.)
func TestContestedHandOffBacksOff(t *testing.T) {
	bk := &ContestedBucket{}
	bk.Open.Store(true)
	gc := &gateClock{FakeClock: clockwork.NewFakeClockAt(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
		started: make(chan time.Duration), proceed: make(chan struct{})}
	spec := endpoint.Spec{Name: "a", URL: endpoint.NewSecret("https://a.example.com/"),
		Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {MaxConcurrentRequests: 1, RequestsPerSecond: 10, BurstCapacity: 1}}}
	p, err := New([]endpoint.Spec{spec}, pool.DefaultSettings(), Options{Clock: gc, Seed: 1,
		NewBucket: func(*endpoint.Spec, endpoint.Role) pool.Bucket { return bk }})
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Role: endpoint.RoleRead, Method: "getBalance"}
	first, err := p.Acquire(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	bk.Open.Store(false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		pm, err := p.Acquire(ctx, req)
		if pm != nil {
			pm.Release()
		}
		done <- err
	}()
	q := &p.roleSet(endpoint.RoleRead).queue
	holdsWake := func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.head != nil && q.head.held
	}
	<-gc.started // the waiter sleeps, the role full
	if holdsWake() {
		t.Fatal("the waiter holds a wake before any release")
	}
	// Released while the waiter is stopped inside NewTimer: the slot is
	// handed to it before it sleeps.
	first.Release()
	gc.proceed <- struct{}{}
	const limit = 200
	end := func() { endContested(cancel, gc, done) }
	for i := 1; ; i++ {
		d := <-gc.started
		busy := holdsWake()
		if !busy {
			gc.proceed <- struct{}{}
			break // it sleeps on its timer: no spin
		}
		if i == limit {
			n := bk.Takes.Load()
			gc.proceed <- struct{}{}
			end()
			t.Fatalf("%d timers set in a row with a wake already held, on one instant of the pool's clock (last %v, %d TakeAt calls): the waiter rescans without end", i, d, n)
		}
		gc.proceed <- struct{}{}
	}
	end()
}

// endContested cancels the waiter's Acquire and lets every timer it still
// sets go until it returned on done.
func endContested(cancel context.CancelFunc, gc *gateClock, done <-chan error) {
	cancel()
	for {
		select {
		case <-gc.started:
			gc.proceed <- struct{}{}
			continue
		case <-done:
		}
		return
	}
}
