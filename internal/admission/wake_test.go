package admission_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/pool"
)

// The tests of handing a freed slot to one waiter (wake.go), through
// Acquire. In the first ones every endpoint has a concurrency cap and no
// rate limit, and the clock never moves: a release is the only thing that
// can admit a waiter, so a lost wake-up is a waiter that never returns
// (get's guard fails the test). The last ones put a time-bound block
// (a token, a cooldown, an ejection) on the freed endpoint.

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

// TestHandedSlotIsNotTakenByANewArrival: a slot freed while a request
// waits is that request's; one arriving at that moment finds the endpoint
// full. (Waking the waiter without the slot, a request on the fast path
// took it first, again and again: at 256 callers on a cap of 8, the
// slowest 1 % waited 240-290 ms; plan 015.)
func TestHandedSlotIsNotTakenByANewArrival(t *testing.T) {
	for range 50 {
		p, fc := newPool(t, capped("a", 1))
		held := now(t, p, read, "a")
		w := queue(t, p, fc, 0, read)[0]
		held.Release()
		if pm := p.TryAcquire(read); pm != nil {
			pm.Release()
			t.Fatal("a new arrival took the slot freed for the waiter")
		}
		w.permit(t, "a").Release()
	}
}

// TestWakeASlotTheWaiterCannotUseYetGoesOn: a slot is handed to a waiter
// that may use the freed endpoint only later (a last resort in doubt,
// whose patience has not run out). It declines the slot, which goes on to
// the waiter behind it.
func TestWakeASlotTheWaiterCannotUseYetGoesOn(t *testing.T) {
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

// anyTimer waits for the next timer the pool starts, whatever its length.
func (c *timerClock) anyTimer(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-c.started:
		return d
	case <-guard(t).Done():
		t.Fatal("no timer started")
		return 0
	}
}

// TestWakeOwedAcrossARateBlock: a slot freed with no token in the bucket
// stays free, and its wake (without the slot) reaches w1, which leaves at
// its deadline before the refill. w2 saw only concurrency (no Until), so
// its timer was its deadline: w1 must pass the wake it owes, for w2 to set
// a timer for the refill. (A review found the version of this change that
// dropped it: w2 slept to its deadline with a free.)
func TestWakeOwedAcrossARateBlock(t *testing.T) {
	p, tc := newPoolTimers(t, ep("a", 0, endpoint.Limits{MaxConcurrentRequests: 1, RequestsPerSecond: 10, BurstCapacity: 1}))
	held := now(t, p, read, "a") // the slot and the only token: the next at t0+100ms
	short, long := read, read
	short.Deadline, long.Deadline = t0.Add(ms(50)), t0.Add(10*time.Second)
	w1 := start(context.Background(), p, short)
	tc.timerStarted(t, ms(50))
	w2 := start(context.Background(), p, long)
	tc.timerStarted(t, 10*time.Second)
	held.Release()             // one wake: w1's
	tc.timerStarted(t, ms(50)) // w1: no token until 100ms, cut to its deadline
	tc.Advance(ms(50))
	if r := w1.get(t); r.err == nil {
		t.Fatal("w1 got a permit")
	}
	refill := tc.anyTimer(t) // w2, woken by w1's leaving: the refill (x/time/rate may say 1 ns sooner)
	if refill > ms(50) || refill < ms(50)-time.Microsecond {
		t.Fatalf("w2's timer %v, want the refill's 50ms", refill)
	}
	tc.Advance(ms(50)) // t0+100ms: a free, a token in the bucket
	w2.permit(t, "a").Release()
}

// TestWakeOwedAcrossACooldown: the same with a 429's cooldown and a waiter
// that gives up (ctx) before the cooldown ends.
func TestWakeOwedAcrossACooldown(t *testing.T) {
	p, tc := newPoolTimers(t, ep("a", 0, endpoint.Limits{MaxConcurrentRequests: 1}))
	held := now(t, p, read, "a")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w1 := start(ctx, p, until30s(read))
	tc.anyTimer(t)
	w2 := tc.waitInTurn(t, p, until30s(read))[0]
	held.Done(rateLimited(0)) // cooldown, then the release's one wake: w1's
	cool := tc.anyTimer(t)    // w1: until the cooldown's end
	cancel()
	if r := w1.get(t); r.err == nil {
		t.Fatal("w1 got a permit")
	}
	tc.anyTimer(t)   // w2, woken by w1's leaving: the cooldown's end
	tc.Advance(cool) // the cooldown is over, a is free
	w2.permit(t, "a").Release()
}

// TestWakeOwedByAPermitElsewhere: w1 (any endpoint) is woken for a while
// a cools down, then admitted on b: it passes a's wake on, or w2, pinned
// to a, sleeps past the cooldown's end.
func TestWakeOwedByAPermitElsewhere(t *testing.T) {
	p, tc := newPoolTimers(t, ep("a", 0, endpoint.Limits{MaxConcurrentRequests: 1}), ep("b", 0, endpoint.Limits{MaxConcurrentRequests: 1}))
	pa, pb := now(t, p, pinnedA(), "a"), now(t, p, pinnedB(), "b")
	ws := tc.waitInTurn(t, p, until30s(read), until30s(pinnedA()))
	w1, w2 := ws[0], ws[1]
	pa.Done(rateLimited(0)) // a cools down; the wake goes to w1 (oldest)
	cool := tc.anyTimer(t)
	pb.Release() // b's slot: handed to w1
	got := w1.permit(t, "b")
	defer got.Release()
	tc.anyTimer(t) // w2, woken by w1's leaving
	tc.Advance(cool)
	w2.permit(t, "a").Release()
}

// TestWakeOfAnEjectedEndpoint: a's failure ejects it and frees its slot,
// handed to w1 (any endpoint, older), for which a is ejected and b busy:
// no panic (1 of 2 ejected), so it declines the slot. w2, pinned to a, is
// admitted at once in panic mode (its only candidate ejected), with the
// clock never moving.
func TestWakeOfAnEjectedEndpoint(t *testing.T) {
	p, tc := newEjectingPool(t, ep("a", 0, endpoint.Limits{MaxConcurrentRequests: 1}), ep("b", 0, endpoint.Limits{MaxConcurrentRequests: 1}))
	pa, pb := now(t, p, pinnedA(), "a"), now(t, p, pinnedB(), "b")
	ws := tc.waitInTurn(t, p, until30s(read), until30s(pinnedA()))
	w1, w2 := ws[0], ws[1]
	pa.Done(failure()) // ejects a, frees its slot: handed to w1
	if d := tc.anyTimer(t); d != 10*time.Second {
		t.Fatalf("w1's timer %v, want the ejection's 10s", d)
	}
	w2.permit(t, "a").Release()
	pb.Release()
	if r := w1.get(t); r.err == nil {
		r.pm.Release()
	}
}

// newPoolTimersWith is newPoolTimers with edit applied to the settings
// and options (newPoolWith's edit).
func newPoolTimersWith(t *testing.T, edit func(*pool.Settings, *admission.Options), specs ...endpoint.Spec) (*admission.Pool, *timerClock) {
	t.Helper()
	tc := &timerClock{FakeClock: clockwork.NewFakeClockAt(t0), started: make(chan time.Duration, 64)}
	return newPoolOn(t, tc, edit, specs...), tc
}

// newEjectingPool is newPoolTimers with endpoints ejected for 10 s after
// one failure.
func newEjectingPool(t *testing.T, specs ...endpoint.Spec) (*admission.Pool, *timerClock) {
	t.Helper()
	return newPoolTimersWith(t, func(s *pool.Settings, _ *admission.Options) {
		s.Ejection = endpoint.Ejection{After: 1, Base: 10 * time.Second, Max: 10 * time.Second}
	}, specs...)
}

// waitInTurn starts one Acquire per request, each once the one before it
// holds its timer, so that they queue in this order.
func (c *timerClock) waitInTurn(t *testing.T, p *admission.Pool, reqs ...admission.Request) []*pending {
	t.Helper()
	ws := make([]*pending, len(reqs))
	for i, req := range reqs {
		ws[i] = start(context.Background(), p, req)
		c.anyTimer(t)
	}
	return ws
}

// until30s is req with its deadline at t0 + 30 s.
func until30s(req admission.Request) admission.Request {
	req.Deadline = t0.Add(30 * time.Second)
	return req
}

// timers waits for n timers the pool starts, whatever their order, and
// returns their lengths sorted.
func (c *timerClock) timers(t *testing.T, n int) []time.Duration {
	t.Helper()
	ds := make([]time.Duration, n)
	for i := range ds {
		ds[i] = c.anyTimer(t)
	}
	slices.Sort(ds)
	return ds
}

// refill is x/time/rate's wait for a token d away: d, or 1 ns sooner.
func refill(d, got time.Duration) bool { return got <= d && got >= d-time.Microsecond }

// TestWakeWithoutASlotToALastResortGoesOn: a's slot frees with no token,
// so the wake goes without it to the oldest waiter that may use a: w1, for
// which a is a last resort in doubt whose patience (2 s) has not run out.
// Its scan does not try a, so it passes the wake on at once to w2, pinned
// to a, which times the refill. (A review found the version that let w1
// keep it: w2 slept to its deadline with a free since t0+100ms.)
func TestWakeWithoutASlotToALastResortGoesOn(t *testing.T) {
	p, tc := newPoolTimersWith(t, func(s *pool.Settings, _ *admission.Options) { s.DoubtPatience = 2 * time.Second },
		rw("a", 0, endpoint.Limits{MaxConcurrentRequests: 1, RequestsPerSecond: 10, BurstCapacity: 1}),
		rw("b", 0, endpoint.Limits{MaxConcurrentRequests: 1}))
	putInDoubt(t, p, "a")
	pa, pb := now(t, p, pinnedA(), "a"), now(t, p, pinnedB(), "b") // a's only token spent: next at t0+100ms
	older := avoidDoubt
	older.Deadline = t0.Add(10 * time.Second)
	onA := pinnedA()
	onA.Deadline = t0.Add(ms(500))
	w1 := start(context.Background(), p, older)
	if d := tc.anyTimer(t); d != 2*time.Second {
		t.Fatalf("w1's timer %v, want lastAt's 2s", d)
	}
	w2 := start(context.Background(), p, onA)
	tc.timerStarted(t, ms(500))
	pa.Release() // no token: a stays free, w1 woken without the slot
	if ds := tc.timers(t, 2); !refill(ms(100), ds[0]) || ds[1] != 2*time.Second {
		t.Fatalf("timers %v, want w2's refill (100ms) and w1's lastAt (2s)", ds)
	}
	tc.Advance(ms(100)) // a token, a free
	w2.permit(t, "a").Release()
	pb.Release()
	if r := w1.get(t); r.err == nil {
		r.pm.Release()
	}
}

// TestWakeWithoutASlotToAWaiterTheGuardRefusesGoesOn: the guard holds a;
// w1 (any endpoint) may not use it, w2 (pinned: the check) may. a's slot
// frees with no token, the wake goes to w1, and w1 passes it on to w2.
func TestWakeWithoutASlotToAWaiterTheGuardRefusesGoesOn(t *testing.T) {
	p, tc := newPoolTimers(t, ep("a", 0, endpoint.Limits{MaxConcurrentRequests: 1, RequestsPerSecond: 10, BurstCapacity: 1}),
		ep("b", 0, endpoint.Limits{MaxConcurrentRequests: 1}))
	p.Hold("a")
	pa, pb := now(t, p, pinnedA(), "a"), now(t, p, pinnedB(), "b")
	long := read
	long.Deadline = t0.Add(10 * time.Second)
	onA := pinnedA()
	onA.Deadline = t0.Add(ms(500))
	w1 := start(context.Background(), p, long)
	tc.timerStarted(t, 10*time.Second)
	w2 := start(context.Background(), p, onA)
	tc.timerStarted(t, ms(500))
	pa.Release()
	if ds := tc.timers(t, 2); !refill(ms(100), ds[0]) || ds[1] != 10*time.Second {
		t.Fatalf("timers %v, want w2's refill (100ms) and w1's deadline (10s)", ds)
	}
	tc.Advance(ms(100))
	w2.permit(t, "a").Release()
	pb.Release()
	if r := w1.get(t); r.err == nil {
		r.pm.Release()
	}
}

// TestWakeOfAnEjectedEndpointToAPanicModeWaiter: TestWakeOfAnEjectedEndpoint
// with the waiters' order swapped. The slot is handed to w1, pinned to a:
// its own scan, in panic mode, must get to take it before the slot goes on.
// (A review found the version that handed it on first: w1 slept, a free,
// in 20 of 20 runs.)
func TestWakeOfAnEjectedEndpointToAPanicModeWaiter(t *testing.T) {
	for range 20 {
		p, tc := newEjectingPool(t, ep("a", 0, endpoint.Limits{MaxConcurrentRequests: 1}), ep("b", 0, endpoint.Limits{MaxConcurrentRequests: 1}))
		pa, pb := now(t, p, pinnedA(), "a"), now(t, p, pinnedB(), "b")
		ws := tc.waitInTurn(t, p, until30s(pinnedA()), until30s(read))
		w1, w2 := ws[0], ws[1]
		pa.Done(failure()) // ejects a, frees its slot: handed to w1
		w1.permit(t, "a").Release()
		pb.Release()
		if r := w2.get(t); r.err == nil {
			r.pm.Release()
		}
	}
}

// panicHandler is a log handler that panics, as a user's might.
type panicHandler struct{ slog.Handler }

func (panicHandler) Enabled(context.Context, slog.Level) bool  { return true }
func (panicHandler) Handle(context.Context, slog.Record) error { panic("handler") }

// TestPanicInWaitLeavesTheQueue: a panic inside wait (the user's log
// handler here; a user's bucket would do as well) still takes the waiter
// out of the queue: the next release's slot is not handed to a waiter
// that is gone. (A review found the version that leaked it for good.)
func TestPanicInWaitLeavesTheQueue(t *testing.T) {
	fc := clockwork.NewFakeClockAt(t0)
	p, err := admission.New([]endpoint.Spec{capped("a", 1)}, pool.DefaultSettings(),
		admission.Options{Clock: fc, Seed: 1, Logger: slog.New(panicHandler{})})
	if err != nil {
		t.Fatal(err)
	}
	held, err := p.Acquire(context.Background(), read)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan any)
	go func() {
		defer func() { done <- recover() }()
		_, _ = p.Acquire(context.Background(), read) // waits: logs, panics
	}()
	if r := <-done; r == nil {
		t.Fatal("no panic")
	}
	held.Release()
	if n := p.Outstanding(); n != 0 {
		t.Errorf("%d slot(s) held by nobody after every permit was released", n)
	}
}

// TestPanicModeTimesTheRefill: a, the waiter's only candidate, is ejected
// with its slot free and no token until t0+100ms. Panic mode would admit
// the waiter but for the token: its timer is the refill, not the
// ejection's end. (A review found the scan that dropped panic mode's
// refusals: the waiter slept to its deadline.)
func TestPanicModeTimesTheRefill(t *testing.T) {
	p, tc := newEjectingPool(t, ep("a", 0, endpoint.Limits{MaxConcurrentRequests: 1, RequestsPerSecond: 10, BurstCapacity: 1}))
	now(t, p, read, "a").Done(failure()) // ejected, the only token spent
	req := read
	req.Deadline = t0.Add(5 * time.Second)
	w := start(context.Background(), p, req)
	if d := tc.anyTimer(t); !refill(ms(100), d) {
		t.Fatalf("the waiter's timer %v, want the refill's 100ms", d)
	}
	tc.Advance(ms(100))
	w.permit(t, "a").Release()
}

// TestEjectionWakesWaitersIntoPanicMode: a's ejection leaves w1 (any of a,
// b, c) outside panic mode, 1 of 3 ejected; b's ejection puts it in, with
// a free. The ejection wakes every waiter, so w1 scans and takes a, and
// w2, pinned to b, takes b. (A review found the version where b's one
// wake went to w2 alone, and w1 slept until a's ejection ended.)
func TestEjectionWakesWaitersIntoPanicMode(t *testing.T) {
	p, tc := newEjectingPool(t, ep("a", 0, endpoint.Limits{MaxConcurrentRequests: 1}), ep("b", 0, endpoint.Limits{MaxConcurrentRequests: 1}),
		ep("c", 0, endpoint.Limits{MaxConcurrentRequests: 1}))
	pinnedC := read
	pinnedC.Endpoint = "c"
	pa, pb, pc := now(t, p, pinnedA(), "a"), now(t, p, pinnedB(), "b"), now(t, p, pinnedC, "c")
	ws := tc.waitInTurn(t, p, until30s(pinnedB()), until30s(read)) // w2 is the older
	w2, w1 := ws[0], ws[1]
	pa.Done(failure()) // a ejected: every waiter scans; a's slot free, nobody's
	if ds := tc.timers(t, 2); ds[0] != 10*time.Second {
		t.Fatalf("timers %v, want w1's at a's ejection's end (10s) first", ds)
	}
	pb.Done(failure()) // b ejected: panic mode for both
	r := w1.get(t)     // a or b, by panic mode's round robin
	if r.err != nil || r.pm.Endpoint() == "c" {
		t.Fatalf("w1: %v, %v; want a permit of a or b", r.pm, r.err)
	}
	if r.pm.Endpoint() == "b" {
		r.pm.Release() // and b's slot goes to w2
	}
	w2.permit(t, "b").Release()
	if r.pm.Endpoint() == "a" {
		r.pm.Release()
	}
	pc.Release()
}

// TestWakeOfAnEjectedEndpointWithoutATokenReachesAPanicWaiter: a is
// ejected (10 s) and full with a panic-mode permit, its tokens spent (next
// at +100ms). w1 (any of a, b, c; 1 of 3 ejected: no panic) is older than
// w2 (pinned to a: panic mode). a's release finds no token, so its wake
// goes without the slot to w1, which cannot use a before the ejection
// ends: it declines until the refill and passes the wake to w2, which
// panic mode admits at +100ms. (A fourth review found the version where
// w1 owed the wake until a's ejection ended, and w2 slept.)
func TestWakeOfAnEjectedEndpointWithoutATokenReachesAPanicWaiter(t *testing.T) {
	p, tc := newEjectingPool(t, ep("a", 0, endpoint.Limits{MaxConcurrentRequests: 1, RequestsPerSecond: 10, BurstCapacity: 2}),
		ep("b", 0, endpoint.Limits{MaxConcurrentRequests: 1}), ep("c", 0, endpoint.Limits{MaxConcurrentRequests: 1}))
	pinnedC := read
	pinnedC.Endpoint = "c"
	now(t, p, pinnedA(), "a").Done(failure()) // a ejected for 10 s, one token left
	pa := now(t, p, pinnedA(), "a")           // panic mode (its only candidate): a full, no token until +100ms
	pb, pc := now(t, p, pinnedB(), "b"), now(t, p, pinnedC, "c")
	long := read
	long.Deadline = t0.Add(30 * time.Second)
	onA := pinnedA()
	onA.Deadline = long.Deadline
	w1 := start(context.Background(), p, long)
	if d := tc.anyTimer(t); d != 10*time.Second {
		t.Fatalf("w1's timer %v", d)
	}
	w2 := start(context.Background(), p, onA)
	if d := tc.anyTimer(t); d != 10*time.Second {
		t.Fatalf("w2's timer %v", d)
	}
	pa.Release() // no token: a wake without the slot, to w1, and on to w2
	if ds := tc.timers(t, 2); !refill(ms(100), ds[0]) || !refill(ms(100), ds[1]) {
		t.Fatalf("timers %v, want both at the refill (100ms)", ds)
	}
	tc.Advance(ms(100)) // a free, a token ready: panic mode admits w2
	w2.permit(t, "a").Release()
	pb.Release()
	pc.Release()
	if r := w1.get(t); r.pm != nil {
		r.pm.Release()
	}
}
