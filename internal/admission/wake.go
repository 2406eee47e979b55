package admission

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// waitQueue is the requests of one role waiting in Acquire, oldest first,
// and how a freed concurrency slot reaches one of them: handed over.
//
// A slot freed on member m, while someone waits, is taken again at once
// (rolestate's TakeSlot) and handed to one waiter: the oldest that may use
// m (waiter.wants), holds no wake already and has not declined m. Waking
// every waiter instead, as the pool did before, made each release a scan,
// a timer and a wake-up for each of them (plan 015, the convoy); waking one
// without handing it the slot let a request arriving meanwhile take the
// slot, again and again, while the waiter's wait grew to its deadline.
//
// No slot is lost and no wake-up either:
//   - a waiter joins before its first scan, so a slot freed after that
//     scan looked finds it queued: a release gives the slot back before it
//     reads n, and a waiter counts itself in n before it scans;
//   - a waiter holding a slot it cannot use (its selection's moving parts:
//     a last resort's time, the guard, a cooldown, a token, the deadline)
//     declines it: the slot goes back and on to the next waiter. The
//     decline lasts until the block's end, which the waiter's timer is
//     set to, or until every waiter is woken (the guard's verdicts, which
//     have no time). Each waiter declines a slot once, so its journey
//     ends;
//   - a slot is handed on only while m could admit a request holding it
//     (UsableAt). During a rate-limit cooldown or with no token it stays
//     free, and a waiter is woken without it, to scan and set its timer to
//     the block's end. That waiter owes the wake until a permit of m
//     pays it: one that leaves without (its deadline, its context, a permit
//     elsewhere) wakes the next, which would otherwise sleep on a timer
//     that knows nothing of m;
//   - a waiter that leaves holding a slot gives it back and on.
//
// What frees many candidates at once, the cluster guard's verdict, wakes
// every waiter without a slot (all).
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
	// held is set from the wake's send until the waiter takes it (take).
	// slot is the member whose freed slot the wake is for (nil: all's
	// wake), handed when the waiter holds that slot now.
	held, handed bool
	slot         *member
	// declined are the members whose slot the waiter could not use, each
	// until when; owed, the members it was woken for without a slot and
	// has no permit of. Written by the waiter's goroutine under the queue's
	// lock, read by routing under it.
	declined []declined
	owed     []*member
}

// declined is a member whose slot a waiter could not use, until a time
// (zero: until all's wake).
type declined struct {
	m     *member
	until time.Time
}

// wants reports whether w may be handed a slot of m: routing's part of
// selection.tries, and not declined.
func (w *waiter) wants(m *member) bool {
	return w.sel.admits(m) && w.sel.lastResort(m) != lastNever &&
		!slices.ContainsFunc(w.declined, func(d declined) bool { return d.m == m })
}

// declinedUntil is the earliest end of w's declines (zero: none has one).
// The waiter's own goroutine reads it without the lock: it alone writes.
func (w *waiter) declinedUntil() time.Time {
	var t time.Time
	for _, d := range w.declined {
		if !d.until.IsZero() && (t.IsZero() || d.until.Before(t)) {
			t = d.until
		}
	}
	return t
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

// take clears w's wake, received from w.wake, and returns the member whose
// slot w now holds (nil: none). A wake without a slot is owed; all's wake
// also clears w's declines: the guard may have let through what w
// declined.
func (q *waitQueue) take(w *waiter) (handed *member) {
	q.mu.Lock()
	switch {
	case w.handed:
		handed = w.slot
	case w.slot != nil:
		w.owed = append(w.owed, w.slot)
	default:
		w.declined = w.declined[:0]
	}
	w.held, w.handed, w.slot = false, false, nil
	q.mu.Unlock()
	return handed
}

// timed ends w's declines due by now: its timer fired.
func (q *waitQueue) timed(w *waiter, now time.Time) {
	if len(w.declined) == 0 {
		return
	}
	q.mu.Lock()
	w.declined = slices.DeleteFunc(w.declined, func(d declined) bool { return !d.until.IsZero() && !now.Before(d.until) })
	q.mu.Unlock()
}

// decline gives back the slot of m that w holds and cannot use until
// until (zero: until all's wake), and hands it on.
func (q *waitQueue) decline(w *waiter, m *member, until time.Time) {
	q.mu.Lock()
	w.declined = append(w.declined, declined{m, until})
	m.rt.ReturnSlot()
	q.route(m)
	q.mu.Unlock()
}

// leave takes w out of the queue, used the member of the permit it leaves
// with (nil: none). It gives back and on the slot of a wake w holds and
// has not taken, and wakes another waiter for each wake w owes but a
// permit of used.
func (q *waitQueue) leave(w *waiter, used *member) {
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
	if m := w.slot; w.held && m != nil {
		if w.handed {
			m.rt.ReturnSlot()
		}
		w.held, w.handed, w.slot = false, false, nil
		q.route(m)
	}
	if i := slices.Index(w.owed, used); used != nil && i >= 0 {
		w.owed = slices.Delete(w.owed, i, i+1)
	}
	for _, m := range w.owed {
		q.route(m)
	}
	w.owed = nil
	q.mu.Unlock()
}

// freed hands a slot just freed on m to a waiter: rolestate's OnSlotFreed.
func (q *waitQueue) freed(m *member) {
	if q.n.Load() == 0 {
		return
	}
	q.mu.Lock()
	q.route(m)
	q.mu.Unlock()
}

// route hands a free slot of m to the first waiter that wants it. When m
// cannot use it now (a rate-limit cooldown, no token), the slot stays free
// and the waiter is woken without it, to scan and put the block's end on
// its timer. With q.mu held.
func (q *waitQueue) route(m *member) {
	for w := q.head; w != nil; w = w.next {
		if w.held || !w.wants(m) {
			continue
		}
		if !m.rt.UsableAt(m.pool.clock.Now()) {
			w.send(m, false)
		} else if m.rt.TakeSlot() {
			w.send(m, true)
		}
		// Else a request on the fast path took the slot since it was
		// freed: its release routes it then.
		return
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
			w.send(nil, false)
		}
	}
	q.mu.Unlock()
}

// send gives w a wake for m (nil: all's), with a slot of m when handed.
// With the queue's lock held.
func (w *waiter) send(m *member, handed bool) {
	w.held, w.handed, w.slot = true, handed, m
	select {
	case w.wake <- struct{}{}:
	default: // unreachable: a wake is sent only while none is held
	}
}
