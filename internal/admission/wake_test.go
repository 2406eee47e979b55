package admission_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
)

// The tests of waking one waiter per freed slot (wake.go). Every endpoint
// here has a concurrency cap and no rate limit, and no test moves the
// clock: a release is the only thing that can admit a waiter, so a lost
// wake-up is a waiter that never returns (get's guard fails the test).

// capped is a read endpoint with at most n requests in flight.
func capped(name string, n int, caps ...string) endpoint.Spec {
	s := ep(name, 0, endpoint.Limits{MaxConcurrentRequests: n})
	s.Capabilities = caps
	return s
}

// queue starts one Acquire per request, each once the one before it waits
// (holds its timer), so that they queue in this order. held is how many
// test goroutines already wait on the clock.
func queue(t *testing.T, p *admission.Pool, fc *clockwork.FakeClock, held int, reqs ...admission.Request) []*pending {
	t.Helper()
	out := make([]*pending, len(reqs))
	for i, req := range reqs {
		out[i] = start(context.Background(), p, req)
		out[i].mustWait(t, fc, held+i+1)
	}
	return out
}

// TestWakeFIFO: waiters that can all use the freed slot get it oldest
// first. Waking every waiter, the order was the scheduler's.
func TestWakeFIFO(t *testing.T) {
	for range 20 {
		p, fc := newPool(t, capped("a", 1))
		held := now(t, p, read, "a")
		ws := queue(t, p, fc, 0, read, read, read)
		for i, w := range ws {
			held.Release()
			held = w.permit(t, "a")
			for _, later := range ws[i+1:] {
				later.mustWait(t, fc, len(ws)-i-1)
			}
		}
		held.Release()
	}
}

// TestWakeSkipsWaitersThatCannotUseTheSlot: the freed slot goes to the
// oldest waiter that may use its endpoint, past older ones pinned to
// another endpoint, needing a capability it lacks, or avoiding it. Waking
// the oldest waiter alone, the slot stayed free while the next one slept.
func TestWakeSkipsWaitersThatCannotUseTheSlot(t *testing.T) {
	archive := read
	archive.Capabilities = []string{"archive"}
	avoidsA := read
	avoidsA.Avoid = []string{"a"}
	for _, older := range []struct {
		name string
		req  admission.Request
	}{{"pinned to b", pinnedB()}, {"needs a capability only b has", archive}, {"avoids a", avoidsA}} {
		t.Run(older.name, func(t *testing.T) {
			p, fc := newPool(t, capped("a", 1), capped("b", 1, "archive"))
			pa, pb := now(t, p, pinnedA(), "a"), now(t, p, pinnedB(), "b")
			ws := queue(t, p, fc, 0, older.req, read)
			pa.Release()
			got := ws[1].permit(t, "a")
			ws[0].mustWait(t, fc, 1)
			pb.Release()
			ws[0].permit(t, "b").Release()
			got.Release()
		})
	}
}

func pinnedA() admission.Request {
	r := read
	r.Endpoint = "a"
	return r
}

func pinnedB() admission.Request {
	r := read
	r.Endpoint = "b"
	return r
}

// TestWakeAScanCannotUseIsPassedBack: a wake reaches a waiter that may use
// the freed endpoint only later (a last resort in doubt, whose patience
// has not run out); its scan fails with the endpoint free, and it passes
// the wake to the waiter behind it, which takes the slot at once.
func TestWakeAScanCannotUseIsPassedBack(t *testing.T) {
	p, fc := newPool(t, rw("a", 0, endpoint.Limits{MaxConcurrentRequests: 1}), rw("b", 0, endpoint.Limits{MaxConcurrentRequests: 1}))
	putInDoubt(t, p, "a")
	pa, pb := now(t, p, pinnedA(), "a"), now(t, p, pinnedB(), "b")
	ws := queue(t, p, fc, 0, avoidDoubt, pinnedA())
	pa.Release()
	got := ws[1].permit(t, "a")
	ws[0].mustWait(t, fc, 1)
	pb.Release()
	ws[0].permit(t, "b").Release()
	got.Release()
}

// TestWakeOfAWaiterThatGivesUpIsPassedOn: a waiter whose context ends as
// its wake arrives leaves with an error or a permit; either way the slot
// reaches the next waiter. (Which of the two comes first is the
// scheduler's: wake_internal_test.go drives each case in turn.)
func TestWakeOfAWaiterThatGivesUpIsPassedOn(t *testing.T) {
	gaveUp := 0
	for range 200 {
		p, fc := newPool(t, capped("a", 1))
		held := now(t, p, read, "a")
		ctx, cancel := context.WithCancel(context.Background())
		first := start(ctx, p, read)
		first.mustWait(t, fc, 1)
		second := queue(t, p, fc, 1, read)[0]
		go cancel()
		held.Release()
		r := first.get(t)
		if r.err != nil {
			gaveUp++
			second.permit(t, "a").Release()
			continue
		}
		second.mustWait(t, fc, 1)
		r.pm.Release()
		second.permit(t, "a").Release()
	}
	t.Logf("the first waiter gave up in %d of 200 runs", gaveUp)
}

// TestWakeStress: goroutines with every kind of selection (any, pinned,
// a capability, Avoid) and some that give up acquire and release permits
// of three capped endpoints on a clock that never moves. Only releases
// admit a waiter, so every Acquire that was not given up must end with a
// permit; one that does not is a lost wake-up.
func TestWakeStress(t *testing.T) {
	const workers, rounds = 48, 150
	p, _ := newPool(t, capped("a", 1), capped("b", 2, "archive"), capped("c", 1))
	kinds := []admission.Request{read, read, pinnedA(), pinnedB(), read, read}
	kinds[4].Capabilities = []string{"archive"}
	kinds[5].Avoid = []string{"b"}
	var wg sync.WaitGroup
	var permits, gaveUp atomic.Int64
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 11))
			for range rounds {
				req := kinds[rng.IntN(len(kinds))]
				ctx, cancel := context.WithCancel(context.Background())
				if rng.IntN(8) == 0 {
					spins := rng.IntN(4)
					go func() {
						for range spins {
							runtime.Gosched()
						}
						cancel()
					}()
				}
				pm, err := p.Acquire(ctx, req)
				cancel()
				if err != nil {
					if ctx.Err() == nil {
						errs <- fmt.Errorf("%+v: %w", req, err)
						return
					}
					gaveUp.Add(1)
					continue
				}
				permits.Add(1)
				for range rng.IntN(3) {
					runtime.Gosched()
				}
				pm.Release()
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second): // a guard: the run takes about a second
		t.Fatalf("lost wake-up: %d permits granted, %d given up, and some Acquire still waits with every endpoint free (in flight: a %d, b %d, c %d)",
			permits.Load(), gaveUp.Load(), snapshotOf(t, p, "a").InFlight, snapshotOf(t, p, "b").InFlight, snapshotOf(t, p, "c").InFlight)
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if permits.Load()+gaveUp.Load() != workers*rounds {
		t.Errorf("%d permits + %d given up, want %d in all", permits.Load(), gaveUp.Load(), workers*rounds)
	}
	t.Logf("%d permits, %d given up", permits.Load(), gaveUp.Load())
}
