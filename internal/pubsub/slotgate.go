package pubsub

import (
	"slices"
	"time"

	"github.com/gagliardetto/solana-go/rpc/ws"
)

// slotGate stands between the heartbeats and the slot stream's tracker,
// so that the stream skips no slot the cluster produced (plan 016, "the
// slot stream's start and joins"). Every connection notifies from the
// slot after its own subscribe, in order; a notification comes late from
// an endpoint that trails. Two holds follow:
//
//   - At engine start nothing is delivered until every connection live
//     or dialing has notified once (or failed), at most startHoldSlots
//     slot times after the first notification. The stream then starts at
//     the latest first slot among the live connections: from there on
//     each of them notifies every slot, so no single one's death leaves
//     a hole. Older notifications are counted stale.
//   - Later, a notification whose parent slot is not delivered yet waits
//     while a live connection that does not lag has not passed that
//     parent (it will notify the slots between), at most MaxSlotLag+1
//     slot times; the trailing connection's own slots flow meanwhile.
//     This covers a fresh connection joining while every live one trails.
type slotGate struct {
	started bool               // the start-up hold is over
	startBy time.Time          // its end at the latest; zero until the first notification
	firsts  map[*wsConn]uint64 // each connection's first slot, during the start-up hold
	held    []heldSlot         // in slot order, arrival order within a slot
	until   time.Time          // the current hold's end at the latest
}

// heldSlot is a held notification and the endpoint that sent it.
type heldSlot struct {
	it *item
	ep *epState
}

const (
	// startHoldSlots bounds the start-up hold in slot times after the
	// first notification: a connection that subscribed in the next slot
	// notifies one slot time later, and half a slot absorbs the jitter.
	startHoldSlots = 1.5
	// maxHeld bounds what the gate holds: past it, it lets all go.
	maxHeld = 256
)

// slotLocked hands the gate a heartbeat notification from c. e.mu must
// be held.
func (e *Engine) slotLocked(it *item, c *wsConn) {
	g := &e.gate
	i := slices.IndexFunc(g.held, func(h heldSlot) bool { return h.it.slot > it.slot })
	if i < 0 {
		i = len(g.held)
	}
	g.held = slices.Insert(g.held, i, heldSlot{it, c.ep})
	if g.started {
		e.flushSlotsLocked(false)
		return
	}
	if g.firsts == nil {
		g.firsts = make(map[*wsConn]uint64)
	}
	if _, ok := g.firsts[c]; !ok {
		g.firsts[c] = it.slot
	}
	if g.startBy.IsZero() {
		g.startBy = e.clock.Now().Add(time.Duration(startHoldSlots * float64(e.cadence)))
		e.kickLoop()
	}
	e.slotStartLocked(false)
}

// slotStartLocked ends the start-up hold once every connection live or
// dialing has notified, or at its deadline (due): the stream starts at
// the latest first slot among the live connections. e.mu must be held.
func (e *Engine) slotStartLocked(due bool) {
	g := &e.gate
	if g.started || g.startBy.IsZero() || (!due && !e.allNotifiedLocked()) {
		return
	}
	var from uint64
	for c, first := range g.firsts {
		if !c.closed {
			from = max(from, first)
		}
	}
	g.started, g.firsts = true, nil
	kept := g.held[:0]
	for _, h := range g.held {
		if h.it.slot < from {
			e.stats.stale++
			e.slots.n.stale++
			continue
		}
		kept = append(kept, h)
	}
	g.held = kept
	e.flushSlotsLocked(false)
}

// allNotifiedLocked reports whether no endpoint is dialing and every
// open connection has notified a slot. e.mu must be held.
func (e *Engine) allNotifiedLocked() bool {
	for _, ep := range e.eps {
		if ep.dialing > 0 {
			return false
		}
		for _, c := range ep.conns {
			if _, ok := e.gate.firsts[c]; !ok {
				return false
			}
		}
	}
	return true
}

// flushSlotsLocked delivers the held notifications that need not wait
// (all of them when force): the next is held while its parent is not
// delivered and a connection will notify it. e.mu must be held.
func (e *Engine) flushSlotsLocked(force bool) {
	g := &e.gate
	force = force || len(g.held) > maxHeld
	for len(g.held) > 0 {
		h := g.held[0]
		if !force && e.waitsLocked(h.it) {
			break
		}
		g.held = g.held[1:]
		e.slots.offerLocked(h.it, h.ep)
	}
	switch {
	case len(g.held) == 0:
		g.held, g.until = nil, time.Time{}
	case g.until.IsZero():
		g.until = e.clock.Now().Add(time.Duration(e.set.MaxSlotLag+1) * e.cadence)
		e.kickLoop()
	}
}

// waitsLocked reports whether a notification must wait for the slots
// before it: its parent is newer than the last slot delivered, and a
// live connection that does not lag has not passed the parent yet. e.mu
// must be held.
func (e *Engine) waitsLocked(it *item) bool {
	t, _ := e.slots.tracker.(*numberTracker)
	if t == nil || !t.has || it.slot <= t.last {
		return false
	}
	parent := it.slot - 1
	if r, ok := it.value.(*ws.SlotResult); ok && r.Parent > 0 && r.Parent < it.slot {
		parent = r.Parent
	}
	if parent <= t.last {
		return false
	}
	for _, ep := range e.eps {
		for _, c := range ep.conns {
			if c.ready && !c.closed && !c.lagging && c.lastSlot != 0 && c.lastSlot < parent {
				return true
			}
		}
	}
	return false
}

// slotsChangedLocked re-runs the gate's rules after a connection or a
// dial ended: a connection waited for is gone. e.mu must be held.
func (e *Engine) slotsChangedLocked() {
	e.slotStartLocked(false)
	if e.gate.started {
		e.flushSlotsLocked(false)
	}
}

// slotTickLocked ends the holds whose deadline came and says when the
// next is due. e.mu must be held.
func (e *Engine) slotTickLocked(d *deadline) {
	g := &e.gate
	if !g.started && !g.startBy.IsZero() {
		if d.now.Before(g.startBy) {
			d.at(g.startBy)
		} else {
			e.slotStartLocked(true)
		}
	}
	if !g.started || len(g.held) == 0 {
		return
	}
	if d.now.Before(g.until) {
		d.at(g.until)
	} else {
		e.flushSlotsLocked(true)
	}
}
