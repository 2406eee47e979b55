package admission

import (
	"time"

	"github.com/solroute/solroute/internal/retry"
	"github.com/solroute/solroute/internal/rolestate"
	"github.com/solroute/solroute/methods"
)

// History routing (plans/018-history-section.md). A history read
// (Request.History, ReadsHistory) ranks the candidates it may use in three passes,
// each by tier:
//
//  1. those that declare history (endpoint.Spec.History) and are not
//     avoided for the method;
//  2. the others not avoided (lastNoHistory);
//  3. those avoided for the method (lastAvoided): they answered a read of
//     it, less than Settings.HistoryAvoid ago, that they lack the history
//     asked for (retry.LacksHistory).
//
// The first pass present is the preferred one: with no endpoint
// declaring history, the others not avoided come first; with every
// candidate avoided, nothing changes. The later passes come after the
// short patience (one slot, at most half the time left), as for a read
// short of its slot: a read waits a moment for an endpoint that has the
// history rather than spend a request on one that will refuse it, or,
// worse, answer null. Every other request pays nothing for any of it.

// Why a candidate is a last resort, for a history read (lastresort.go
// holds the others).
const (
	lastNoHistory uint8 = iota + lastShort + 1 // declares no history
	lastAvoided                                // avoided for the method
)

// historyPatience is how long a history read waits for an endpoint of
// an earlier pass before it tries one of a later pass: a slot, like a
// read short of its slot.
const historyPatience = shortPatience

// history is the pool's history routing: the methods it keeps
// avoidances for, and for how long.
type history struct {
	// index numbers the history methods (historyNames),
	// names lists them by number.
	index map[string]int
	names []string
	// avoidFor is Settings.HistoryAvoid: 0 records nothing.
	avoidFor time.Duration
}

// newHistory numbers the history methods of reg (methods.Default when
// nil).
func newHistory(reg *methods.Registry, avoidFor time.Duration) history {
	if reg == nil {
		reg = methods.Default()
	}
	h := history{names: historyNames(reg), avoidFor: avoidFor}
	h.index = make(map[string]int, len(h.names))
	for i, n := range h.names {
		h.index[n] = i
	}
	return h
}

// historyRead prepares sel for a history read of req: sel.hist is the
// method's number + 1 (0 for a method the pool keeps no avoidance for:
// the declaration still ranks). It reports whether req is one.
func (p *Pool) historyRead(sel *selection, req *Request) bool {
	if !req.History {
		return false
	}
	if i, ok := p.history.index[req.Method]; ok && i < 1<<16-1 {
		sel.hist = uint16(i + 1)
	}
	return true
}

// historyReason says in which pass a history read tries m at now.
func (s *selection) historyReason(m *member, now time.Time) uint8 {
	if s.hist != 0 && m.rt.Shared().AvoidedAt(int(s.hist)-1, now) {
		return lastAvoided
	}
	if !m.spec.History {
		return lastNoHistory
	}
	return notLast
}

// promoteNoHistory makes the endpoints that declare no history, and are
// not avoided, the preferred ones of sel, when no candidate that
// declares history can be had: the first pass present comes first. It
// reports whether there were any.
func (s *selection) promoteNoHistory() bool {
	found := false
	for _, m := range s.rs.ordered {
		if s.admits(m) && s.last.of(m.idx) == lastNoHistory {
			s.last.set(m.idx, notLast, len(s.rs.ordered))
			found = true
		}
	}
	return found
}

// avoidHistory records that pm's endpoint answered its history read with
// code: when code says it lacks the history asked for, the endpoint is
// avoided for the method for Settings.HistoryAvoid.
func (pm *Permit) avoidHistory(code int, now time.Time) {
	h := &pm.m.pool.history
	if h.avoidFor > 0 && retry.LacksHistory(code) {
		pm.m.rt.Shared().AvoidUntil(int(pm.hist)-1, now.Add(h.avoidFor))
	}
}

// avoidedAt maps the methods the endpoint of sh is avoided for at now
// to the time left (nil: none).
func (h *history) avoidedAt(sh *rolestate.Shared, now time.Time) map[string]time.Duration {
	var out map[string]time.Duration
	for i, name := range h.names {
		if d := sh.AvoidedFor(i, now); d > 0 {
			if out == nil {
				out = make(map[string]time.Duration)
			}
			out[name] = d
		}
	}
	return out
}
