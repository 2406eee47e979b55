package slots

import (
	"sync/atomic"
	"time"

	"github.com/solroute/solroute/endpoint"
)

// Where an endpoint stands on the chain (plans/009-consistency.md): state
// every role of one endpoint shares, because a node has one ledger
// whatever role a request plays.

// Marks are where one endpoint is on the chain: the latest slot it
// answered at per commitment, the latest slot its banks served or refused
// a read at, and its distance from the pool's reference (Book.restand).
// The zero value is an endpoint with no slot seen, not lagging. All
// methods are safe for concurrent use.
type Marks struct {
	marks [Commitments]slotMark
	// banks are the latest slot a bank of the endpoint served or refused
	// a read at, per commitment (SawBank), whatever came before: what the
	// next read there is likely to find.
	banks [Commitments]slotMark
	// off is the distance from the pool's reference slot (positive:
	// behind), and standing whether that makes the endpoint a last
	// resort: both written by the pool's recompute only.
	off      atomic.Int64
	standing atomic.Uint32
}

// slotMark is the latest slot seen at one commitment and when.
type slotMark struct {
	slot atomic.Uint64
	at   atomic.Int64 // UnixNano of the pool's clock; 0: never
}

// SawSlot records that the endpoint answered at slot s, commitment c, at
// now. The mark rises to s; it also falls to s when s is more than
// resetBelow below it (the node restarted from an older snapshot: its old
// mark no longer says where it is). A slot 0 changes nothing. It reports
// whether the mark's slot changed.
func (sh *Marks) SawSlot(now time.Time, c Commitment, s, resetBelow uint64) bool {
	if int(c) >= len(sh.marks) || s == 0 {
		return false
	}
	n := now.UnixNano()
	m := &sh.marks[c]
	for {
		old := m.slot.Load()
		if s <= old && old-s <= resetBelow {
			raiseTo(&m.at, n)
			return false
		}
		if m.slot.CompareAndSwap(old, s) {
			raiseTo(&m.at, n)
			return true
		}
	}
}

// SawBank records that a bank of the endpoint at commitment c served, or
// refused, a read at slot s at now: an answer's context slot, or the
// contextSlot of a -32016. Unlike the mark it goes down as readily as
// up: a provider's fleet behind one URL answers from nodes a few slots
// apart, and a node whose slot answer (getSlot) runs ahead of its banks
// refuses at the bank's slot; the latest reading is the best guess of
// what the next read finds. A slot 0 changes nothing.
func (sh *Marks) SawBank(now time.Time, c Commitment, s uint64) {
	if int(c) >= len(sh.banks) || s == 0 {
		return
	}
	// Two stores, not one: a read between them pairs a slot with the
	// instant of a reading a moment apart, which a guess can afford.
	b := &sh.banks[c]
	b.slot.Store(s)
	raiseTo(&b.at, now.UnixNano())
}

// Bank returns the latest bank reading at commitment c (SawBank) and how
// long before now it was taken; ok is false when there is none.
func (sh *Marks) Bank(now time.Time, c Commitment) (slot uint64, age time.Duration, ok bool) {
	if int(c) >= len(sh.banks) {
		return 0, 0, false
	}
	b := &sh.banks[c]
	at := b.at.Load()
	if at == 0 {
		return 0, 0, false
	}
	return b.slot.Load(), time.Duration(max(now.UnixNano()-at, 0)), true
}

// raiseTo sets v to n when n is later.
func raiseTo(v *atomic.Int64, n int64) {
	for {
		old := v.Load()
		if n <= old || v.CompareAndSwap(old, n) {
			return
		}
	}
}

// Slot returns the latest slot seen at commitment c and how long before
// now it was seen (0 if now is earlier); ok is false when none was.
func (sh *Marks) Slot(now time.Time, c Commitment) (slot uint64, age time.Duration, ok bool) {
	if int(c) >= len(sh.marks) {
		return 0, 0, false
	}
	m := &sh.marks[c]
	at := m.at.Load()
	if at == 0 {
		return 0, 0, false
	}
	return m.slot.Load(), time.Duration(max(now.UnixNano()-at, 0)), true
}

// SetStanding records the endpoint's distance from the pool's reference
// slot (positive behind, negative ahead; 0 when unknown) and its standing.
func (sh *Marks) SetStanding(off int64, s endpoint.SlotStanding) {
	sh.off.Store(off)
	sh.standing.Store(uint32(s))
}

// Standing returns what SetStanding recorded.
func (sh *Marks) Standing() (off int64, s endpoint.SlotStanding) {
	return sh.off.Load(), endpoint.SlotStanding(sh.standing.Load())
}

// Off reports whether the endpoint's standing makes it a last resort
// (Lagging or Outlier).
func (sh *Marks) Off() bool { return sh.standing.Load() != uint32(endpoint.InStep) }
