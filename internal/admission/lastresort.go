package admission

import (
	"slices"
	"time"

	"github.com/solroute/solroute/endpoint"

	"github.com/solroute/solroute/internal/rolestate"
	"github.com/solroute/solroute/internal/slots"
)

// Last resorts: the candidates a request tries only after every other,
// in a second pass of the scan. Three kinds (plans/007-one-outcome.md,
// plans/009-consistency.md), and two more for a history read
// (history.go: one that declares no history, in the second pass, and one
// avoided for the method, in a third):
//
//   - in doubt, for a request that avoids doubt (a send): after
//     Settings.DoubtPatience;
//   - off the slot reference (lagging, an outlier): at once, and never
//     when known to be below Request.Slot;
//   - short of Request.Slot (slot-aware choice): an endpoint in step
//     whose latest reading (slots.go, short) is below the slot the read
//     must reach, which would only refuse it (-32016) or answer stale;
//     after shortPatience, so that a read waits a moment for an endpoint
//     at its slot that is busy or rate-limited rather than spend a
//     request on a refusal;
//   - for a read's last chance (Request.Proven), one that has not
//     answered since it last failed (health not Available): after
//     shortPatience too, so that the attempt a call has left waits a
//     moment for an endpoint that answers, in any tier, rather than probe
//     one that may never answer (plans/008-balancing.md, "The last
//     chance").

// Why a candidate is a last resort.
const (
	notLast   uint8 = iota
	lastDoubt       // in doubt, for a request that avoids doubt
	lastSlot        // lagging or an outlier (slots.go)
	lastNever       // off the reference and below Request.Slot: never tried
	lastShort       // in step, its latest reading short of Request.Slot
)

// lastUnproven is a candidate a last chance (Request.Proven) uses only
// after the others: it has not answered since it last failed. (After the
// history reads' kinds, history.go.)
const lastUnproven = lastAvoided + 1

// shortPatience is how long a read waits for a candidate at its slot
// before it tries one short of it (at most half the time left): one slot,
// after which a reading one slot short is extrapolated past it anyway.
const shortPatience = slots.SlotTime

// lastResorts marks the candidates to use only as a last resort: those
// in doubt at now, when req asks to avoid them, those off the slot
// reference, and those short of req.MinSlot; provided a candidate the
// selection admits is none of them. It sets lastAt, when those in doubt
// or short may be used: now plus the doubt patience, or plus
// shortPatience, cut to half the time left before deadline. A request
// has one kind or the other (a send avoids doubt and carries no floor; a
// read carries a floor and does not avoid doubt); one that has both
// waits the longer patience for both. It allocates only when some
// candidate is a last resort in a role of more than lastInline.
func (p *Pool) lastResorts(sel *selection, req *Request, now, deadline time.Time) {
	doubt := req.AvoidDoubt && p.doubtWindow > 0
	off := p.slots.MaxLag() > 0 && p.slots.LastResorts()
	if off {
		p.slots.MaybeRestand(now)
		off = p.slots.LastResorts()
	}
	short := req.Slot.Floor > 0 && p.slots.MaxLag() > 0
	sel.avoidsDoubt = doubt
	hist := p.historyRead(sel, req)
	if !doubt && !off && !short && !hist && !req.Proven {
		return
	}
	var last lastMarks
	preferred, patience := false, time.Duration(0)
	for _, m := range sel.rs.ordered {
		if !sel.admits(m) {
			continue
		}
		why := p.lastReason(m, req, now, doubt, off, short)
		if why == notLast && hist {
			why = sel.historyReason(m, now)
		}
		switch why {
		case notLast:
			preferred = true
			continue
		case lastDoubt:
			patience = max(patience, p.doubtPatience)
		case lastShort, lastNoHistory, lastUnproven:
			patience = max(patience, shortPatience)
		case lastAvoided:
			patience = max(patience, historyPatience)
			sel.avoidLast = true
		default:
			sel.slotLast = true
		}
		last.set(m.idx, why, len(sel.rs.ordered))
	}
	sel.last = last
	if last.any() && !preferred && hist {
		preferred = sel.promoteNoHistory()
	}
	if !last.any() || !preferred {
		sel.last, sel.slotLast, sel.avoidLast = lastMarks{}, false, false
		return
	}
	if patience > 0 {
		sel.lastAt = now.Add(min(patience, deadline.Sub(now)/2))
	}
}

// lastReason says why m is a last resort for req at now (notLast: it is
// not): doubt when the request avoids it, then the slot standing when
// some endpoint is off the reference, then the slot-aware choice when
// the request carries a floor.
func (p *Pool) lastReason(m *member, req *Request, now time.Time, doubt, off, short bool) uint8 {
	sh := m.rt.Shared()
	switch {
	case doubt && m.rt.InDoubtAt(now):
		return lastDoubt
	case off && sh.Off():
		if req.Slot.Floor > 0 && p.slots.Below(&sh.Marks, now, req.Slot.Commitment, req.Slot.Floor) {
			return lastNever
		}
		return lastSlot
	case short && (p.slots.Short(&sh.Marks, now, req.Slot) || req.Retry && p.unproven(m, now, req.Slot)):
		return lastShort
	case req.Proven && m.rt.StateAt(now) != endpoint.Available:
		return lastUnproven
	}
	return notLast
}

// unproven reports whether m, for a read that needs need, is no better
// than one short of it: nothing fresh is known of its slot, and nothing
// says it answers (rolestate.Runtime.UnansweredAt: it has failed since it
// last answered, or has requests in flight and has never answered). Not knowing an
// endpoint's slot lets a read go and find out where it answers; where it
// does not (the soak's dead reader, which never answers and so never
// reports a slot), that read would spend its attempt, and time, on it
// ahead of endpoints a slot short that answer (plans/009-consistency.md,
// "Unknown is not ahead").
func (p *Pool) unproven(m *member, now time.Time, need slots.Need) bool {
	return p.slots.Unread(&m.rt.Shared().Marks, now, need) && m.rt.UnansweredAt(now)
}

// admits reports whether m is a candidate of this selection: compatible,
// and outside Avoid when Avoid applies.
func (s *selection) admits(m *member) bool {
	return s.compatible(m) && (len(s.avoid) == 0 || !slices.Contains(s.avoid, m.spec.Name))
}

// lastResort says why m is one of the selection's last resorts
// (notLast: it is not).
func (s *selection) lastResort(m *member) uint8 { return s.last.of(m.idx) }

// tries reports whether pass (0, 1 or 2) at now tries m: the first pass
// every candidate that is not a last resort, the second the last resorts
// whose time has come, the third those avoided for a history read's
// method, once their time has come.
func (s *selection) tries(m *member, pass int, now time.Time) bool {
	if !s.admits(m) {
		return false
	}
	switch s.lastResort(m) {
	case notLast:
		return pass == 0
	case lastDoubt, lastShort, lastNoHistory, lastUnproven:
		return pass == 1 && !now.Before(s.lastAt)
	case lastAvoided:
		return pass == 2 && !now.Before(s.lastAt)
	case lastNever:
		return false
	}
	return pass == 1
}

// passes is how many passes a scan at now makes: a second one, over the
// last resorts only, when there are any whose time has come, and a third
// over those avoided for a history read's method, once their time has
// come.
func (s *selection) passes(now time.Time) int {
	switch {
	case !s.last.any():
		return 1
	case !now.Before(s.lastAt):
		if s.avoidLast {
			return 3
		}
		return 2
	case s.slotLast:
		return 2
	}
	return 1
}

// heldBack counts into t the last resorts whose time has not come at
// now (in doubt, or short of the slot), and brings t.wakeAt forward to
// when it does, if sooner. Held back, they still count toward the panic threshold: a
// healthy endpoint in doubt, or one a slot short, must not let panic mode
// hand the request to an ejected one.
func (s *selection) heldBack(now time.Time, t *tally) {
	if !now.Before(s.lastAt) {
		return
	}
	if t.wakeAt.IsZero() || s.lastAt.Before(t.wakeAt) {
		t.wakeAt = s.lastAt
	}
	for _, m := range s.rs.ordered {
		if !s.admits(m) {
			continue
		}
		if why := s.lastResort(m); why == lastDoubt || why == lastShort || why == lastNoHistory || why == lastAvoided || why == lastUnproven {
			t.seen++
			if m.rt.ProbeAt(now, time.Time{}).Reason == rolestate.BlockedByEjection {
				t.ejected++
			}
		}
	}
}

// lastInline is how many candidates of a role lastMarks holds without
// allocating.
const lastInline = 16

// lastMarks says, by member index, why each candidate is a last resort.
// The zero value marks none. Held by value in the selection (a slice
// into it would move the selection to the heap), it allocates only for a
// role of more than lastInline candidates.
type lastMarks struct {
	inline [lastInline]uint8
	big    []uint8
	marked bool
}

// set marks candidate i of a role of n as a last resort, for why.
func (l *lastMarks) set(i int, why uint8, n int) {
	l.marked = true
	if n <= lastInline {
		l.inline[i] = why
		return
	}
	if l.big == nil {
		l.big = make([]uint8, n)
	}
	l.big[i] = why
}

// any reports whether some candidate is marked.
func (l *lastMarks) any() bool { return l.marked }

// of is why candidate i is a last resort (notLast: it is not).
func (l *lastMarks) of(i int) uint8 {
	switch {
	case !l.marked:
		return notLast
	case l.big != nil:
		return l.big[i]
	case i < lastInline:
		return l.inline[i]
	}
	return notLast
}
