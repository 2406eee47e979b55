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
// Every wake is settled by the waiter that takes it (Pool.settle), so
// none is lost:
//   - a waiter joins before its first scan, so a slot freed after that
//     scan looked finds it queued: a release gives the slot back before it
//     reads n, and a waiter counts itself in n before it scans;
//   - a waiter handed a slot scans as any request would, but is admitted
//     on that slot when the scan reaches m (Pool.scan's held): a preferred
//     tier or candidate free meanwhile still comes first, and panic mode
//     still applies. If the scan took another member, the slot goes on
//     when the waiter leaves; if it took nothing, the waiter gives the
//     slot back and declines m until the block's end (a token, a
//     cooldown), and the slot goes on;
//   - a slot is handed only while m could admit a request holding it
//     (UsableAt). During a rate-limit cooldown or with no token it stays
//     free, and a waiter is woken without it. If its selection may use m
//     now, its scan tried m and timed the block's end, and it owes the
//     wake until a permit of m pays it; one that leaves without (its
//     deadline, its context, a permit elsewhere) wakes the next, which
//     would otherwise sleep on a timer that knows nothing of m. If it may
//     not (a last resort's time, the guard), it declines m and passes the
//     wake at once;
//   - a wake for an ejected m is never kept: panic mode, this waiter's or
//     one behind it, may use m before the ejection ends. The waiter
//     declines until m could admit again (its token, its cooldown's end),
//     or until the ejection's end when m could admit now (so the waiter is
//     not in panic mode), and passes the wake on;
//   - a decline lasts until its end, which the waiter's timer is set to, or
//     until the cluster guard's next verdict (all), which has no time. A
//     waiter skips the wakes of a member it declined, so each wake's
//     journey ends;
//   - an ejection wakes every waiter of the role (Pool.onStateChange): it
//     may put waiters in panic mode, where they can use what they could
//     not;
//   - a waiter that leaves (a permit, its deadline, its context, a panic)
//     gives back and on the slot or wake it holds.
type waitQueue struct {
	// n counts the waiters queued: a release that reads 0 takes no lock.
	n          atomic.Int32
	mu         sync.Mutex
	head, tail *waiter
}

// waiter is one Acquire in its role's queue. Its selection is a copy, so
// that Acquire's own stays on the stack on the fast path; its fixed part
// is written before join and only read after.
//
// Every field below wake is written under the queue's lock; the waiter's
// own goroutine reads declined without it, for it alone writes it.
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
	// forget is set by all: the waiter's declines end when it takes its
	// next wake (it may hold one that all did not replace).
	forget bool
	// declined are the members whose wakes the waiter skips, each until
	// when; owed, the members it was woken for without a slot and has no
	// permit of.
	declined []declined
	owed     []*member
	// spin is the back-off after a scan that found a contested bucket
	// (contestedBackoff), zero after any other; wait and settle own it.
	spin time.Duration
}

// declined is a member whose wakes a waiter skips, until a time (zero:
// until all's wake).
type declined struct {
	m     *member
	until time.Time
}

// wants reports whether w may be woken for a slot of m: routing's part of
// selection.tries, and not declined.
func (w *waiter) wants(m *member) bool {
	if !w.sel.admits(m) || w.sel.lastResort(m) == lastNever {
		return false
	}
	return w.forget || !slices.ContainsFunc(w.declined, func(d declined) bool { return d.m == m })
}

// declinedUntil is the earliest end of w's declines (zero: none has one).
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
	defer q.mu.Unlock()
	w.prev = q.tail
	if q.tail != nil {
		q.tail.next = w
	} else {
		q.head = w
	}
	q.tail = w
	q.n.Add(1)
}

// take clears w's wake, received from w.wake, and returns the member it is
// for (nil: all's wake) and whether w holds that member's slot now.
func (q *waitQueue) take(w *waiter) (m *member, handed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	m, handed = w.slot, w.handed
	if w.forget || m == nil {
		w.declined, w.forget = w.declined[:0], false
	}
	w.held, w.handed, w.slot = false, false, nil
	return m, handed
}

// expire ends w's declines due by now.
func (q *waitQueue) expire(w *waiter, now time.Time) {
	if t := w.declinedUntil(); t.IsZero() || now.Before(t) {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	w.declined = slices.DeleteFunc(w.declined, func(d declined) bool { return !d.until.IsZero() && !now.Before(d.until) })
}

// owe records that w owes a wake for m (Pool.settle).
func (q *waitQueue) owe(w *waiter, m *member) {
	q.mu.Lock()
	defer q.mu.Unlock()
	w.owed = append(w.owed, m)
}

// decline makes w skip m's wakes until until (zero: until all's wake), and
// passes the wake it had for m on.
func (q *waitQueue) decline(w *waiter, m *member, until time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	w.declined = append(w.declined, declined{m, until})
	q.route(m)
}

// pass hands a wake for m on.
func (q *waitQueue) pass(m *member) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.route(m)
}

// leave takes w out of the queue. used is the member of the permit it
// leaves with (nil: none); woke the member of a wake it took and has not
// settled (nil: none), whose slot it still holds when holding. A permit of
// m uses woke's wake if woke is m, else one it owes for m; every other
// wake w took, holds or owes goes on to the next waiter, its slot given
// back.
func (q *waitQueue) leave(w *waiter, used, woke *member, holding bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
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
	if holding {
		woke.rt.ReturnSlot()
	}
	if woke != nil && woke == used {
		woke, used = nil, nil
	}
	if m := w.slot; w.held && m != nil {
		if w.handed {
			m.rt.ReturnSlot()
		}
		w.held, w.handed, w.slot = false, false, nil
		q.route(m)
	}
	if woke != nil {
		q.route(woke)
	}
	if i := slices.Index(w.owed, used); used != nil && i >= 0 {
		w.owed = slices.Delete(w.owed, i, i+1)
	}
	for _, m := range w.owed {
		q.route(m)
	}
	w.owed = nil
}

// freed hands a slot just freed on m to a waiter: rolestate's OnSlotFreed.
func (q *waitQueue) freed(m *member) {
	if q.n.Load() == 0 {
		return
	}
	q.pass(m)
}

// route hands a free slot of m to the first waiter that wants it. When m
// cannot use it now (a rate-limit cooldown, no token), the slot stays free
// and the waiter is woken without it. With q.mu held.
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

// all wakes every queued waiter that holds no wake, and ends every
// waiter's declines: the cluster guard's verdict may have let through what
// they declined.
func (q *waitQueue) all() {
	if q.n.Load() == 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for w := q.head; w != nil; w = w.next {
		w.forget = true
		if !w.held {
			w.send(nil, false)
		}
	}
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
