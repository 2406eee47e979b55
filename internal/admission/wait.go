package admission

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/solroute/solroute/internal/rolestate"
)

// wait scans again and again, sleeping between scans until the earliest of:
// a wake from the role's waitQueue (a slot freed that it may use, most
// often handed to it), the earliest cooldown end or token refill seen in
// the scan (a timer), the end of a decline (the same timer), the deadline
// (the same timer) and ctx. It holds no lock while sleeping, and every
// wakeup follows an event or a time a block ends.
func (p *Pool) wait(ctx context.Context, sel *selection, req *Request, deadline time.Time) (pm *Permit, err error) {
	q := &sel.rs.queue
	w := &waiter{sel: *sel, wake: make(chan struct{}, 1)}
	sel = &w.sel
	// Queued before the scan: a slot freed after this line reaches w,
	// even if the scan saw the role full.
	q.join(w)
	// wk is the wake w took last and has not settled. Deferred, so that
	// even a panic (a logger's, a bucket's) gives it on.
	var wk wake
	defer func() {
		var used *member
		if pm != nil {
			used = pm.m
		}
		q.leave(w, used, wk.m, wk.holding)
	}()
	for {
		now := p.clock.Now()
		q.expire(w, now)
		var held *member
		if wk.holding {
			held = wk.m
		}
		var wakeAt time.Time
		var late bool
		if pm, wakeAt, late = p.scan(sel, now, deadline, held); pm != nil {
			if pm.m == held {
				wk.holding = false // the permit's now
			}
			return pm, nil
		}
		if wk.m != nil {
			p.settle(w, &wk, now)
		}
		if late || !now.Before(deadline) {
			return nil, p.deadlineError(sel, req, now, deadline, nil)
		}
		// A decline ends at a time the scan may not have seen: the wake
		// went on to another waiter, and the member may look full.
		if t := w.declinedUntil(); !t.IsZero() && (wakeAt.IsZero() || t.Before(wakeAt)) {
			wakeAt = t
		}
		if wakeAt.IsZero() || wakeAt.After(deadline) {
			wakeAt = deadline
		}
		if w.spin = contestedBackoff(w.spin, now, wakeAt); w.spin > 0 {
			wakeAt = minTime(now.Add(w.spin), deadline)
		}
		if wk, err = p.sleep(ctx, w, req, now, wakeAt, deadline); err != nil {
			return nil, err
		}
	}
}

// wake is a wake a waiter took: for which member (nil: none, or all's),
// whether it was handed the member's slot, and whether it still holds it.
type wake struct {
	m               *member
	handed, holding bool
}

// settle is what w does with its wake for wk.m, which its scan at now did
// not use, the slot (if handed) given back first:
//   - its selection may not use the member now (a last resort's time, the
//     guard): it declines the member until it may, and the wake goes on;
//   - the member is ejected: panic mode, this waiter's or another's, may
//     use it before the ejection ends. It declines until the member could
//     admit again (a token, a cooldown's end), or until the ejection ends
//     when the member could admit now (so it is not in panic mode), and
//     the wake goes on;
//   - a wake without a slot: its scan tried the member and timed the
//     block's end (a token, a cooldown), so it owes the wake;
//   - a handed slot taken again since it was given back (a request on the
//     fast path): that request's release hands it on;
//   - a handed slot the member refused it (a token, a cooldown): it
//     declines until the block ends, and the slot goes on; when the
//     member admits at once all the same (a contested bucket), it
//     declines for the back-off (contestedBackoff).
func (p *Pool) settle(w *waiter, wk *wake, now time.Time) {
	q, m := &w.sel.rs.queue, wk.m
	if wk.holding {
		wk.holding = false // first: a panic below must not give it back twice
		m.rt.ReturnSlot()
	}
	until, usable := w.sel.usable(m, now)
	b := m.rt.ProbeAt(now, time.Time{})
	switch {
	case !usable:
		q.decline(w, m, until)
	case b.Reason == rolestate.BlockedByEjection:
		if from := m.rt.UsableFrom(now); from.After(now) && from.Before(b.Until) {
			b.Until = from
		}
		q.decline(w, m, b.Until)
	case !wk.handed:
		q.owe(w, m)
	case b.Reason == rolestate.BlockedByConcurrency:
	case b.Until.IsZero():
		// The scan was refused the member at now, yet it admits at now: a
		// contested bucket (contestedBackoff), or a token that came since
		// (a lease). Passed on, the slot would come straight back to w,
		// and w scan again at once, without end: w declines it for the
		// back-off (a nanosecond first), and the slot goes on.
		w.spin = contestedBackoff(w.spin, now, now)
		q.decline(w, m, now.Add(w.spin))
	default:
		q.decline(w, m, b.Until)
	}
	wk.m = nil
}

// sleep waits at most until wakeAt for w's next wake, and returns it (zero
// when the timer fired), or ctx's error.
func (p *Pool) sleep(ctx context.Context, w *waiter, req *Request, now, wakeAt, deadline time.Time) (wake, error) {
	d := max(wakeAt.Sub(now), time.Nanosecond) // wait's back-off sees to it; a floor all the same
	if p.log != nil && p.log.Enabled(ctx, slog.LevelDebug) {
		p.log.LogAttrs(ctx, slog.LevelDebug, "pool: every candidate blocked, waiting",
			slog.String("method", req.Method), slog.String("role", req.Role.String()),
			slog.Duration("for_at_most", d), slog.Duration("deadline_in", deadline.Sub(now)))
	}
	timer := p.clock.NewTimer(d)
	defer timer.Stop()
	select {
	case <-w.wake:
		m, handed := w.sel.rs.queue.take(w)
		return wake{m: m, handed: handed, holding: handed}, nil
	case <-timer.Chan():
		return wake{}, nil
	case <-ctx.Done():
		err := ctx.Err()
		if now := p.clock.Now(); errors.Is(err, context.DeadlineExceeded) && !now.Before(deadline) {
			return wake{}, p.deadlineError(&w.sel, req, now, deadline, err)
		}
		return wake{}, p.contextError(req, err)
	}
}

// usable reports whether a scan of the selection at now may take m, limits
// aside: the guard lets it through and a pass at now tries it. When not,
// until is when it may (a last resort's time; zero: when the guard says).
func (s *selection) usable(m *member, now time.Time) (until time.Time, ok bool) {
	if _, ok := s.takes(m); !ok {
		return time.Time{}, false
	}
	for pass := range s.passes(now) {
		if s.tries(m, pass, now) {
			return time.Time{}, true
		}
	}
	return s.lastAt, false
}

// maxContestedBackoff bounds contestedBackoff: a waiter on a contested
// bucket scans at most about a thousand times a second.
const maxContestedBackoff = time.Millisecond

// contestedBackoff returns the back-off after a scan at now that admitted
// nothing and timed its next one at wakeAt, the last back-off being
// spin: zero when wakeAt is after now, else spin doubled, from a
// nanosecond up to maxContestedBackoff. Every block a bucket that keeps
// its contract reports clears strictly after now. One whose ReadyAt says
// now while TakeAt refuses (a limiter shared with other processes that
// took the token first, or one that is wrong) would have the waiter scan
// again at once, without end: 47 000 TakeAt calls in 200 ms, measured in
// delta 029. The first rounds stay short, since a token another waiter
// took may be given back or leased at once.
func contestedBackoff(spin time.Duration, now, wakeAt time.Time) time.Duration {
	if wakeAt.After(now) {
		return 0
	}
	return min(max(2*spin, time.Nanosecond), maxContestedBackoff)
}

// minTime returns the earlier of a and b.
func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
