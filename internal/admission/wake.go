package admission

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/solroute/solroute/internal/rolestate"
)

// waitQueue is the requests of one role waiting in Acquire, oldest first,
// and how a freed concurrency slot reaches one of them.
//
// A slot freed on member m wakes one waiter: the oldest that may use m
// (waiter.wants) and holds no wake already. Waking every waiter, as the
// pool did before, made each release a scan, a timer and a wake-up for
// each of them, and all but one found the slot taken (plan 015, the
// convoy). No wake is lost:
//   - a waiter joins before its first scan, so a slot freed after that
//     scan looked finds it queued: a release gives the slot back before it
//     reads n, and a waiter counts itself in n before it scans;
//   - a waiter that leaves holding a wake it did not use (a permit on
//     another endpoint, its deadline, its context) routes that wake again;
//   - a woken waiter whose scan failed while m could still admit someone
//     passes the wake to the next waiter behind it that may use m. wants
//     knows the selection's fixed part (capabilities, a pin, Avoid); only
//     a scan knows the rest (a last resort's time, panic mode). Passing
//     only backwards, never to an older waiter, ends every wake's journey
//     at the tail.
//
// A woken waiter whose scan found m's slot taken again drops the wake: a
// request on Acquire's fast path took it (the queue does not stop one, as
// sync.Mutex's normal mode does not), and its release wakes again. What
// frees many candidates at once, the cluster guard's verdict, wakes every
// waiter (all).
type waitQueue struct {
	// n counts the waiters queued: a release that reads 0 takes no lock.
	n          atomic.Int32
	mu         sync.Mutex
	head, tail *waiter
}

// waiter is one Acquire in its role's queue. Its selection is a copy, so
// that Acquire's own stays on the stack on the fast path; its fixed part
// is written before join and only read after.
type waiter struct {
	sel selection
	// wake is buffered: a wake is sent only while none is held, so the
	// send never blocks.
	wake       chan struct{}
	prev, next *waiter
	// held is set from the wake's send until the waiter takes it (take);
	// slot is the member whose freed slot it was for (nil: all's).
	held bool
	slot *member
}

// wants reports whether w may use m: routing's part of selection.tries.
func (w *waiter) wants(m *member) bool {
	return w.sel.admits(m) && w.sel.lastResort(m) != lastNever
}

// join queues w last.
func (q *waitQueue) join(w *waiter) {
	q.mu.Lock()
	w.prev = q.tail
	if q.tail != nil {
		q.tail.next = w
	} else {
		q.head = w
	}
	q.tail = w
	q.n.Add(1)
	q.mu.Unlock()
}

// take clears w's wake, received from w.wake, and returns the member it
// was for (nil: all's).
func (q *waitQueue) take(w *waiter) *member {
	q.mu.Lock()
	m := w.slot
	w.held, w.slot = false, nil
	q.mu.Unlock()
	return m
}

// leave takes w out of the queue. taken is the member of the wake w took
// last and has not passed on (nil: none), used the member of the permit w
// leaves with (nil: none). A permit on a member uses one wake for it;
// every other wake w took or holds is routed again, from the head.
func (q *waitQueue) leave(w *waiter, taken, used *member) {
	q.mu.Lock()
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		q.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		q.tail = w.prev
	}
	q.n.Add(-1)
	var held *member
	if w.held {
		held = w.slot
	}
	if taken != nil && taken == used {
		taken, used = nil, nil
	}
	if held != nil && held == used {
		held = nil
	}
	if taken != nil {
		q.route(taken, q.head)
	}
	if held != nil {
		q.route(held, q.head)
	}
	q.mu.Unlock()
}

// freed routes a wake for a slot freed on m: rolestate's OnSlotFreed.
func (q *waitQueue) freed(m *member) {
	if q.n.Load() == 0 {
		return
	}
	q.mu.Lock()
	q.route(m, q.head)
	q.mu.Unlock()
}

// pass hands the wake for m, which w took and could not use, to the next
// waiter behind w that may use m, when m can still admit one now.
func (q *waitQueue) pass(w *waiter, m *member) {
	if m.rt.ProbeAt(m.pool.clock.Now(), time.Time{}).Reason != rolestate.NotBlocked {
		return // taken again, or blocked until a time every waiter's timer knows
	}
	q.mu.Lock()
	q.route(m, w.next)
	q.mu.Unlock()
}

// route wakes the first waiter from w on that may use m and holds no
// wake. With q.mu held.
func (q *waitQueue) route(m *member, w *waiter) {
	for ; w != nil; w = w.next {
		if !w.held && w.wants(m) {
			w.send(m)
			return
		}
	}
}

// all wakes every queued waiter that holds no wake.
func (q *waitQueue) all() {
	if q.n.Load() == 0 {
		return
	}
	q.mu.Lock()
	for w := q.head; w != nil; w = w.next {
		if !w.held {
			w.send(nil)
		}
	}
	q.mu.Unlock()
}

// send gives w a wake for m (nil: all's). With the queue's lock held.
func (w *waiter) send(m *member) {
	w.held, w.slot = true, m
	select {
	case w.wake <- struct{}{}:
	default: // unreachable: a wake is sent only while none is held
	}
}
