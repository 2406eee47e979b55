package admission

import (
	"slices"

	"github.com/solroute/solroute/internal/slots"
)

// SawSlot records that the permit's endpoint answered at slot, commitment
// c (a response's context.slot, getSlot's result, or the contextSlot of a
// -32016). It may be called before or after Done.
func (pm *Permit) SawSlot(c slots.Commitment, slot uint64) {
	pm.m.pool.slots.SawSlot(pm.m.pool.clock.Now(), &pm.m.rt.Shared().Marks, c, slot)
}

// SawBank records that a bank of the permit's endpoint at commitment c
// served the request at slot (an answer's context slot) or refused it
// there (the contextSlot of a -32016): what SawSlot records, and the
// reading the slot-aware choice judges the endpoint's banks by
// (Request.MinSlot). It may be called before or after Done.
func (pm *Permit) SawBank(c slots.Commitment, slot uint64) {
	pm.m.pool.slots.SawBank(pm.m.pool.clock.Now(), &pm.m.rt.Shared().Marks, c, slot)
}

// SlotElsewhere reports whether an endpoint outside avoid can take req
// (HasAlternative's rule: compatible, and let through by the cluster
// guard), is in step with the others, and is not known to be short of
// req.Slot.Floor (the slot-aware choice's rule): where a read refused a few slots
// short of its floor can be retried at once. With no floor, or
// lag-aware routing off, it is HasAlternative. Like it, it does not look
// at who is free now. When it reports false, nearest is the fewest slots
// any of those endpoints in step is known to be short (0: none is): how
// far the chain must advance before one of them has the slot.
func (p *Pool) SlotElsewhere(req Request, avoid []string) (elsewhere bool, nearest uint64) {
	var sel selection
	if !p.selection(&sel, &Request{Role: req.Role, Capabilities: req.Capabilities, Endpoint: req.Endpoint}) {
		return false, 0
	}
	aware, now := req.Slot.Floor > 0 && p.slots.MaxLag() > 0, p.clock.Now()
	for _, m := range sel.rs.ordered {
		if _, ok := sel.takes(m); !ok || slices.Contains(avoid, m.spec.Name) {
			continue
		}
		sh := m.rt.Shared()
		if !aware {
			return true, 0
		}
		if sh.Off() {
			// the acquire's rule (lastReason): off the reference, it is
			// tried at once unless known to be below the floor
			if p.slots.Below(&sh.Marks, now, req.Slot.Commitment, req.Slot.Floor) {
				continue
			}
			return true, 0
		}
		if p.unproven(m, now, req.Slot) {
			continue
		}
		gap := p.slots.Gap(&sh.Marks, now, req.Slot)
		if gap == 0 {
			return true, 0
		}
		if nearest == 0 || gap < nearest {
			nearest = gap
		}
	}
	return false, nearest
}

// Slots returns the pool's slot book: where each endpoint is on the chain,
// the reference, and the floors reads are held to (package slots).
func (p *Pool) Slots() *slots.Book { return p.slots }

// Marks returns where the permit's endpoint is on the chain, to record
// what its answer says (slots.Book.Answered).
func (pm *Permit) Marks() *slots.Marks { return &pm.m.rt.Shared().Marks }
