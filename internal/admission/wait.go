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
		if pm = p.useWake(w, &wk, now, deadline); pm != nil {
			return pm, nil
		}
		var wakeAt time.Time
		var late bool
		if pm, wakeAt, late = p.scan(sel, now, deadline); pm != nil {
			return pm, nil
		}
		if wk.m != nil {
			q.settle(w, wk.m, wk.handed, wk.usable, wk.until)
			wk = wake{}
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
		if wk, err = p.sleep(ctx, w, req, now, wakeAt, deadline); err != nil {
			return nil, err
		}
	}
}

// wake is a wake a waiter took: for which member (nil: none, or all's),
// whether it still holds the member's slot, and, once useWake has looked,
// whether it was handed the slot, whether its selection may use the
// member now and, if not, until when.
type wake struct {
	m                       *member
	holding, handed, usable bool
	until                   time.Time
}

// useWake admits w on the slot its wake handed it, when its selection may
// use the member now and the member admits. Otherwise it gives the slot
// back (the scan that follows may take it still: panic mode, another
// pass) and notes in wk why, for settle.
func (p *Pool) useWake(w *waiter, wk *wake, now, deadline time.Time) *Permit {
	if wk.m == nil {
		return nil
	}
	wk.until, wk.usable = w.sel.usable(wk.m, now)
	wk.handed = wk.holding
	if !wk.holding {
		return nil
	}
	if wk.usable {
		pm, b := p.admitHeld(&w.sel, wk.m, now, deadline)
		if pm != nil {
			wk.holding = false // the permit's now
			return pm
		}
		wk.until = b.Until
	}
	wk.m.rt.ReturnSlot()
	wk.holding = false
	return nil
}

// sleep waits at most until wakeAt for w's next wake, and returns it (zero
// when the timer fired), or ctx's error.
func (p *Pool) sleep(ctx context.Context, w *waiter, req *Request, now, wakeAt, deadline time.Time) (wake, error) {
	// Every block the scan reports clears strictly after now; the floor
	// only guarantees that a wrong bucket cannot make the loop spin.
	d := max(wakeAt.Sub(now), time.Nanosecond)
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
		return wake{m: m, holding: handed}, nil
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

// admitHeld admits the request on m, whose slot the wait queue handed it
// and which the selection may use now (usable): no cooldown, a token,
// before the deadline. Otherwise b says why (its Until, when the block
// ends), and the slot is still the caller's.
func (p *Pool) admitHeld(sel *selection, m *member, now, deadline time.Time) (*Permit, rolestate.Block) {
	a, b, ok := m.rt.AdmitHeldAt(now, deadline)
	if !ok {
		return nil, b
	}
	return p.permit(sel, m, a, deadline), rolestate.Block{}
}
