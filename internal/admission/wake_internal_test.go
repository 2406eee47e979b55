package admission

import (
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/rolestate"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
)

// The wait queue's hand-offs, driven step by step: which waiter each freed
// slot reaches, where a declined or abandoned slot goes, and when a slot
// stays free. (wake_test.go runs the same rules through Acquire, where the
// order of the goroutines is the scheduler's.)

// wakeEnv is a pool of endpoints a and b, each capped at one request, c
// capped at one and at one request a second, and the read role's queue.
type wakeEnv struct {
	t       *testing.T
	p       *Pool
	q       *waitQueue
	a, b, c *member
}

func newWakeEnv(t *testing.T) *wakeEnv {
	t.Helper()
	var specs []endpoint.Spec
	for _, name := range []string{"a", "b", "c"} {
		l := endpoint.Limits{MaxConcurrentRequests: 1}
		if name == "c" {
			l.RequestsPerSecond, l.BurstCapacity = 1, 1
		}
		specs = append(specs, endpoint.Spec{Name: name, URL: endpoint.NewSecret("https://" + name + ".example.com/"),
			Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: l}})
	}
	p, err := New(specs, pool.DefaultSettings(), Options{Clock: clockwork.NewFakeClock(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	rs := p.roleSet(endpoint.RoleRead)
	return &wakeEnv{t: t, p: p, q: &rs.queue, a: rs.ordered[0], b: rs.ordered[1], c: rs.ordered[2]}
}

// waiter queues a waiter for a read pinned to only ("": any endpoint).
func (e *wakeEnv) waiter(only string) *waiter {
	e.t.Helper()
	req := Request{Role: endpoint.RoleRead, Method: "getBalance", Endpoint: only}
	w := &waiter{wake: make(chan struct{}, 1)}
	if !e.p.selection(&w.sel, &req) {
		e.t.Fatal("no candidate")
	}
	e.q.join(w)
	return w
}

// handed requires w to have been woken with a slot of m, and takes the
// wake.
func (e *wakeEnv) handed(w *waiter, m *member) {
	e.t.Helper()
	if got, handed := e.woken(w); got != m || !handed {
		e.t.Fatalf("woken for %s (handed %v), want handed a slot of %s", name(got), handed, name(m))
	}
}

// plain requires w to have been woken for m without its slot, and takes
// the wake.
func (e *wakeEnv) plain(w *waiter, m *member) {
	e.t.Helper()
	if got, handed := e.woken(w); got != m || handed {
		e.t.Fatalf("woken for %s (handed %v), want a wake for %s without its slot", name(got), handed, name(m))
	}
}

// woken requires w to hold a wake, takes it and returns the member it is
// for (nil: all's) and whether w holds its slot.
func (e *wakeEnv) woken(w *waiter) (*member, bool) {
	e.t.Helper()
	select {
	case <-w.wake:
	default:
		e.t.Fatal("no wake")
	}
	return e.q.take(w)
}

// asleep requires each of ws to hold no wake.
func (e *wakeEnv) asleep(ws ...*waiter) {
	e.t.Helper()
	for i, w := range ws {
		if len(w.wake) != 0 || w.held {
			e.t.Fatalf("waiter %d was woken (for %s)", i, name(w.slot))
		}
	}
}

// inFlight requires m to hold n slots.
func (e *wakeEnv) inFlight(m *member, n int) {
	e.t.Helper()
	if got := m.rt.InFlight(); got != n {
		e.t.Fatalf("%s holds %d slots, want %d", name(m), got, n)
	}
}

func name(m *member) string {
	if m == nil {
		return "no endpoint"
	}
	return m.spec.Name
}

// hold admits a request on m, and returns its release.
func (e *wakeEnv) hold(m *member) func() {
	e.t.Helper()
	a, _, ok := m.rt.AdmitAt(e.p.clock.Now(), time.Time{})
	if !ok {
		e.t.Fatalf("%s is not free", name(m))
	}
	return func() { m.rt.Release(a) }
}

// refuse is wait's way with a handed slot w cannot use: given back, the
// scan failed, the wake declined until until.
func (e *wakeEnv) refuse(w *waiter, m *member, until time.Time) {
	m.rt.ReturnSlot()
	e.q.decline(w, m, until)
}

func TestHandOffToTheOldestThatMayUseTheSlot(t *testing.T) {
	e := newWakeEnv(t)
	// b and c are busy: the only slot the scan can use is the one handed
	// (a's; were b free, the balancer could choose it, a's handed slot
	// counting in a's cost)
	defer e.hold(e.b)()
	defer e.hold(e.c)()
	release := e.hold(e.a)
	onB, any1, any2 := e.waiter("b"), e.waiter(""), e.waiter("")
	release()
	e.inFlight(e.a, 1) // handed, not freed: a request arriving now finds a full
	e.asleep(onB, any2)
	e.q.freed(e.a) // a release whose slot a request on the fast path took
	e.asleep(onB, any2)
	e.handed(any1, e.a)
	pm, _, _ := e.p.scan(&any1.sel, e.p.clock.Now(), time.Time{}, e.a)
	if pm == nil || pm.m != e.a {
		t.Fatal("the waiter handed a's slot was not admitted on it")
	}
	e.inFlight(e.a, 1)
	e.q.leave(any1, e.a, e.a, false) // its permit used the wake
	e.asleep(onB, any2)
	pm.Release() // and the slot goes on to the next waiter
	e.inFlight(e.a, 1)
	e.handed(any2, e.a)
	e.asleep(onB)
	e.q.leave(any2, nil, e.a, true) // leaving with it: on again, and nobody wants it
	e.inFlight(e.a, 0)
	e.asleep(onB)
}

func TestDeclinedWakeGoesOn(t *testing.T) {
	e := newWakeEnv(t)
	release := e.hold(e.a)
	any1, onB, any2 := e.waiter(""), e.waiter("b"), e.waiter("")
	release()
	soon := e.p.clock.Now().Add(10 * time.Millisecond)
	e.handed(any1, e.a)
	e.refuse(any1, e.a, soon) // a cooldown's end, say
	if any1.declinedUntil() != soon {
		t.Fatalf("declined until %v, want %v", any1.declinedUntil(), soon)
	}
	e.handed(any2, e.a)
	e.refuse(any2, e.a, time.Time{}) // until the guard says
	if any2.declinedUntil() != (time.Time{}) {
		t.Fatal("a decline with no end has one")
	}
	e.inFlight(e.a, 0) // nobody else wants it: free
	e.asleep(any1, onB, any2)
	e.q.freed(e.a) // both declined a
	e.asleep(any1, any2)
	e.q.expire(any1, soon.Add(-1))
	e.q.freed(e.a)
	e.asleep(any1, any2)
	e.q.expire(any1, soon)
	e.q.freed(e.a)
	e.handed(any1, e.a)
	e.refuse(any1, e.a, time.Time{})
	e.q.all() // the guard's verdict: every waiter scans, declines forgotten
	for _, w := range []*waiter{any1, onB, any2} {
		if m, _ := e.woken(w); m != nil {
			t.Fatalf("all's wake was for %s", name(m))
		}
	}
	e.q.freed(e.a)
	e.handed(any1, e.a)
	e.refuse(any1, e.a, time.Time{})
	e.handed(any2, e.a)
	e.refuse(any2, e.a, time.Time{})
	e.inFlight(e.a, 0)
}

// TestAllForgetsTheDeclinesOfAWaiterHoldingAWake: a waiter that holds a
// wake when the guard's verdict comes gets no wake of all's, but forgets
// its declines all the same, when it takes the wake it holds.
func TestAllForgetsTheDeclinesOfAWaiterHoldingAWake(t *testing.T) {
	e := newWakeEnv(t)
	releaseA, releaseB := e.hold(e.a), e.hold(e.b)
	w := e.waiter("")
	releaseA()
	e.handed(w, e.a)
	e.refuse(w, e.a, time.Time{}) // the guard held a, say
	releaseB()                    // w holds b's slot
	e.q.all()                     // a verified: w holds a wake, so all sends none
	e.handed(w, e.b)
	if len(w.declined) != 0 {
		t.Fatalf("w still declines %d endpoints after the verdict", len(w.declined))
	}
	e.refuse(w, e.b, time.Time{})
	e.q.freed(e.a)
	e.handed(w, e.a)
	e.refuse(w, e.a, time.Time{})
}

func TestOwedWakeGoesOn(t *testing.T) {
	e := newWakeEnv(t)
	release := e.hold(e.c) // spends c's only token
	any1, any2, any3 := e.waiter(""), e.waiter(""), e.waiter("")
	release()
	e.inFlight(e.c, 0) // free, for the waiter to scan and time the token's wait
	e.plain(any1, e.c)
	e.asleep(any2, any3)
	e.q.owe(any1, e.c) // its scan timed c's block
	e.asleep(any2, any3)
	e.q.leave(any1, e.a, nil, false) // a permit elsewhere: the wake goes on
	e.plain(any2, e.c)
	e.q.decline(any2, e.c, time.Time{}) // could not try c: declined and on at once
	e.plain(any3, e.c)
	e.q.owe(any3, e.c)
	e.q.leave(any3, e.c, nil, false) // a permit of c pays what it owes
	e.asleep(any2)
	e.q.leave(any2, nil, nil, false)
}

func TestWakeQueueUnlinks(t *testing.T) {
	e := newWakeEnv(t)
	ws := []*waiter{e.waiter(""), e.waiter(""), e.waiter("")}
	for _, i := range []int{1, 2, 0} {
		e.q.leave(ws[i], nil, nil, false)
	}
	if e.q.head != nil || e.q.tail != nil || e.q.n.Load() != 0 {
		t.Fatalf("queue not empty: head %v, tail %v, n %d", e.q.head, e.q.tail, e.q.n.Load())
	}
	release := e.hold(e.a)
	release()
	e.inFlight(e.a, 0) // nobody to hand it to
}

// TestHandedSlotYieldsToAPreferredTier: a slot of b (tier 1) is handed to
// w1, and a (tier 0) frees before w1 runs (w1 holds a wake, so a's wake
// skips it). w1's scan takes a, as any scan would, and b's slot goes on to
// w2, pinned to b. (A review found the version that admitted w1 on b
// without a scan: a stayed free while w2 waited.)
func TestHandedSlotYieldsToAPreferredTier(t *testing.T) {
	l := endpoint.Limits{MaxConcurrentRequests: 1}
	specs := []endpoint.Spec{
		{Name: "a", URL: endpoint.NewSecret("https://a.example.com/"), Tier: 0, Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: l}},
		{Name: "b", URL: endpoint.NewSecret("https://b.example.com/"), Tier: 1, Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: l}},
	}
	p, err := New(specs, pool.DefaultSettings(), Options{Clock: clockwork.NewFakeClock(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	rs := p.roleSet(endpoint.RoleRead)
	e := &wakeEnv{t: t, p: p, q: &rs.queue, a: rs.ordered[0], b: rs.ordered[1]}
	releaseA, releaseB := e.hold(e.a), e.hold(e.b)
	w1, w2 := e.waiter(""), e.waiter("b")
	releaseB()
	releaseA()
	e.inFlight(e.a, 0)
	e.asleep(w2)
	e.handed(w1, e.b)
	pm, _, _ := p.scan(&w1.sel, p.clock.Now(), time.Time{}, e.b)
	if pm == nil || pm.m != e.a {
		t.Fatalf("w1's scan: %v, want a permit of a, the preferred tier", pm)
	}
	e.q.leave(w1, pm.m, e.b, true) // b's slot given back and on
	e.handed(w2, e.b)
	e.q.leave(w2, nil, e.b, true)
	pm.Release()
	e.inFlight(e.a, 0)
	e.inFlight(e.b, 0)
}

// TestPanicWaiterDeclinesOnlyUntilTheRefill: w's only candidate a is
// ejected (30 s): panic mode. a's freed slot is handed to w (a token
// ready), but a new arrival takes the last token before w scans: w's
// panic scan is refused for the token (until +1 s), and w declines a until
// the refill, not the ejection's end, which panic mode ignores. (A fourth
// review found the version that declined for 30 s: every slot a freed
// skipped w while a was free with a token.)
func TestPanicWaiterDeclinesOnlyUntilTheRefill(t *testing.T) {
	s := pool.DefaultSettings()
	s.Ejection = endpoint.Ejection{After: 1, Base: 30 * time.Second, Max: 30 * time.Second}
	fc := clockwork.NewFakeClock()
	p, err := New([]endpoint.Spec{{Name: "a", URL: endpoint.NewSecret("https://a.example.com/"),
		Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {MaxConcurrentRequests: 3, RequestsPerSecond: 1, BurstCapacity: 5}}}},
		s, Options{Clock: fc, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	rs := p.roleSet(endpoint.RoleRead)
	q, a := &rs.queue, rs.ordered[0]
	req := Request{Role: endpoint.RoleRead, Method: "getBalance"}
	must := func() *Permit {
		t.Helper()
		pm := p.TryAcquire(req)
		if pm == nil {
			t.Fatal("not admitted")
		}
		return pm
	}
	p1, p2, p3 := must(), must(), must() // 2 tokens left
	p1.Done(retrypolicy.Outcome{Cause: retrypolicy.Connection, Dispatch: retrypolicy.NotDispatched, Fault: retrypolicy.EndpointFault})
	p4 := must() // panic mode: a full, 1 token
	w := &waiter{wake: make(chan struct{}, 1)}
	p.selection(&w.sel, &req)
	q.join(w)
	deadline := fc.Now().Add(20 * time.Second)
	if pm, _, _ := p.scan(&w.sel, fc.Now(), deadline, nil); pm != nil {
		t.Fatal("admitted")
	}
	p2.Release() // handed to w: a token is ready
	p3.Release() // w holds a wake: stays free
	p5 := must() // a new arrival: the free slot and the last token
	<-w.wake
	m, handed := q.take(w)
	if m != a || !handed {
		t.Fatal("not handed")
	}
	pm, wakeAt, _ := p.scan(&w.sel, fc.Now(), deadline, a)
	if pm != nil {
		t.Fatal("admitted without a token")
	}
	t.Logf("w's timer: %v", wakeAt.Sub(fc.Now()))
	p.settle(w, &wake{m: a, handed: true, holding: true}, fc.Now())
	if d := w.declinedUntil().Sub(fc.Now()); d > time.Second {
		t.Errorf("w (panic mode) declines a for %v; panic mode may use it at the refill, 1s", d)
	}
	// The consequence: at the refill an arrival beats w to a; then a slot frees.
	fc.Advance(time.Second)
	p6 := must()
	q.expire(w, fc.Now())
	_, wakeAt, _ = p.scan(&w.sel, fc.Now(), deadline, nil)
	p4.Release()
	fc.Advance(time.Second) // a free, a token ready
	if len(w.wake) == 0 && wakeAt.Sub(fc.Now()) > time.Second {
		if pm, _, _ := p.scan(&w.sel, fc.Now(), deadline, nil); pm != nil {
			t.Errorf("lost wake-up: a is free with a token for w (panic mode), w holds no wake, its timer is %v away", wakeAt.Sub(fc.Now()))
			pm.Release()
		}
	}
	q.leave(w, nil, nil, false)
	p5.Release()
	p6.Release()
	if n := p.Outstanding(); n != 0 {
		t.Errorf("outstanding %d", n)
	}
}

// armedBucket panics in ReadyAt once armed, as a user's bucket (one shared
// between processes, say) might.
type armedBucket struct {
	pool.Bucket
	armed bool
}

func (b *armedBucket) ReadyAt(t time.Time) time.Time {
	if b.armed {
		b.armed = false
		panic("bucket")
	}
	return b.Bucket.ReadyAt(t)
}

// TestPanicInSettleGivesTheSlotBackOnce: settle gives the handed slot
// back, then calls into the bucket (ProbeAt, or route's UsableAt). When
// the bucket panics there, wait's deferred leave must not give the same
// slot back again, counting free a slot another permit holds. (A fourth
// review found the version that did.)
func TestPanicInSettleGivesTheSlotBackOnce(t *testing.T) {
	var bk *armedBucket
	p, err := New([]endpoint.Spec{{Name: "a", URL: endpoint.NewSecret("https://a.example.com/"),
		Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {MaxConcurrentRequests: 2, RequestsPerSecond: 100, BurstCapacity: 10}}}},
		pool.DefaultSettings(), Options{Clock: clockwork.NewFakeClock(), Seed: 1,
			NewBucket: func(spec *endpoint.Spec, role endpoint.Role) pool.Bucket {
				bk = &armedBucket{Bucket: rolestate.NewRateBucket(spec.Roles[role])}
				return bk
			}})
	if err != nil {
		t.Fatal(err)
	}
	rs := p.roleSet(endpoint.RoleRead)
	q, a := &rs.queue, rs.ordered[0]
	req := Request{Role: endpoint.RoleRead, Method: "getBalance"}
	keep, other := p.TryAcquire(req), p.TryAcquire(req)
	w := &waiter{wake: make(chan struct{}, 1)}
	p.selection(&w.sel, &req)
	q.join(w)
	other.Release() // handed to w
	<-w.wake
	m, handed := q.take(w)
	wk := wake{m: m, handed: handed, holding: handed}
	bk.armed = true
	func() { // wait's shape: the deferred leave, then settle
		defer func() { _ = recover() }()
		defer func() { q.leave(w, nil, wk.m, wk.holding) }()
		p.settle(w, &wk, p.clock.Now())
	}()
	if got := a.rt.InFlight(); got != 1 {
		t.Errorf("a counts %d slots in flight with one permit held", got)
	}
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("the held permit's Release panicked: %v", r)
		}
	}()
	keep.Release()
}
