package admission

import (
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/pool"
)

// The wake queue's routing, driven step by step: which waiter each freed
// slot, each wake left unused and each wake passed on reaches. (wake_test.go
// runs the same rules through Acquire, where the order of the goroutines
// is the scheduler's.)

// wakeEnv is a pool of endpoints a and b, each capped at one request, and
// the read role's queue.
type wakeEnv struct {
	t    *testing.T
	p    *Pool
	q    *waitQueue
	a, b *member
}

func newWakeEnv(t *testing.T) *wakeEnv {
	t.Helper()
	var specs []endpoint.Spec
	for _, name := range []string{"a", "b"} {
		specs = append(specs, endpoint.Spec{Name: name, URL: endpoint.NewSecret("https://" + name + ".example.com/"),
			Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {MaxConcurrentRequests: 1}}})
	}
	p, err := New(specs, pool.DefaultSettings(), Options{Clock: clockwork.NewFakeClock(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	rs := p.roleSet(endpoint.RoleRead)
	return &wakeEnv{t: t, p: p, q: &rs.queue, a: rs.ordered[0], b: rs.ordered[1]}
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

// woken requires w to hold a wake for m (nil: all's) and takes it.
func (e *wakeEnv) woken(w *waiter, m *member) {
	e.t.Helper()
	select {
	case <-w.wake:
	default:
		e.t.Fatalf("no wake for %s", name(m))
	}
	if got := e.q.take(w); got != m {
		e.t.Fatalf("wake for %s, want %s", name(got), name(m))
	}
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

func name(m *member) string {
	if m == nil {
		return "every waiter"
	}
	return m.spec.Name
}

// hold takes m's only slot, and returns the admission to give back.
func (e *wakeEnv) hold(m *member) func() {
	e.t.Helper()
	a, _, ok := m.rt.AdmitAt(e.p.clock.Now(), time.Time{})
	if !ok {
		e.t.Fatalf("%s is not free", name(m))
	}
	return func() { m.rt.Release(a) }
}

func TestWakeRoutesToTheOldestThatMayUseTheSlot(t *testing.T) {
	e := newWakeEnv(t)
	release := e.hold(e.a)
	onB, any1, any2 := e.waiter("b"), e.waiter(""), e.waiter("")
	release()
	e.asleep(onB, any2)
	// A second slot freed while any1 still holds its wake goes past it.
	e.q.freed(e.a)
	e.woken(any1, e.a)
	e.woken(any2, e.a)
	e.asleep(onB)
	// Taken, a wake no longer counts: the oldest is first again.
	e.q.freed(e.a)
	e.woken(any1, e.a)
	e.asleep(onB, any2)
}

func TestWakeUnusedIsRoutedAgain(t *testing.T) {
	t.Run("taken, then a permit elsewhere", func(t *testing.T) {
		e := newWakeEnv(t)
		any, onA := e.waiter(""), e.waiter("a")
		e.q.freed(e.a)
		e.woken(any, e.a)
		e.asleep(onA)
		e.q.leave(any, e.a, e.b)
		e.woken(onA, e.a)
	})
	t.Run("held, and the waiter gives up", func(t *testing.T) {
		e := newWakeEnv(t)
		any, onA := e.waiter(""), e.waiter("a")
		e.q.freed(e.a)
		e.q.leave(any, nil, nil) // its context ended before it took the wake
		e.woken(onA, e.a)
	})
	t.Run("held, and a permit on the same endpoint", func(t *testing.T) {
		e := newWakeEnv(t)
		any, onA := e.waiter(""), e.waiter("a")
		e.q.freed(e.a) // the scan that took a raced this wake
		e.q.leave(any, nil, e.a)
		e.asleep(onA)
	})
	t.Run("taken and held, one used", func(t *testing.T) {
		e := newWakeEnv(t)
		any, onA := e.waiter(""), e.waiter("a")
		e.q.freed(e.a)
		e.woken(any, e.a)
		e.q.freed(e.a) // a second slot freed while any scanned
		e.asleep(onA)
		e.q.leave(any, e.a, e.a)
		e.woken(onA, e.a)
	})
	t.Run("all's wake", func(t *testing.T) {
		e := newWakeEnv(t)
		any, onA := e.waiter(""), e.waiter("a")
		e.q.all()
		e.woken(any, nil)
		e.woken(onA, nil)
		e.q.leave(any, nil, nil)
		e.asleep(onA)
	})
}

func TestWakePassedOnOnlyBackwardsAndOnlyWhileFree(t *testing.T) {
	e := newWakeEnv(t)
	older, w, younger := e.waiter("a"), e.waiter(""), e.waiter("")
	e.q.pass(w, e.a) // a is free: the next waiter behind w, not the older one
	e.woken(younger, e.a)
	e.asleep(older)
	release := e.hold(e.a)
	e.q.pass(w, e.a) // a is taken again: its release wakes, not this
	e.asleep(older, younger)
	release()
	e.woken(older, e.a)
	e.q.pass(younger, e.a) // nobody behind the last waiter
	e.asleep(w)
}

func TestWakeQueueUnlinks(t *testing.T) {
	e := newWakeEnv(t)
	ws := []*waiter{e.waiter(""), e.waiter(""), e.waiter("")}
	for _, i := range []int{1, 2, 0} {
		e.q.leave(ws[i], nil, nil)
	}
	if e.q.head != nil || e.q.tail != nil || e.q.n.Load() != 0 {
		t.Fatalf("queue not empty: head %v, tail %v, n %d", e.q.head, e.q.tail, e.q.n.Load())
	}
	e.q.freed(e.a) // nobody to wake
}
