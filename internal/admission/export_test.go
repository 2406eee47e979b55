package admission

import "github.com/solroute/solroute/internal/slots"

// Test-only doors: the slot book read through the pool, on its clock.

// ReferenceSlot is the pool's slot book's reference at c, now.
func (p *Pool) ReferenceSlot(c slots.Commitment) (uint64, bool) {
	return p.slots.Reference(p.clock.Now(), c)
}

// AgreedSlot is the pool's slot book's agreed slot at c, now.
func (p *Pool) AgreedSlot(c slots.Commitment) (uint64, bool) {
	return p.slots.Agreed(p.clock.Now(), c)
}

// MaxSlotLag is the pool's slot book's lag.
func (p *Pool) MaxSlotLag() uint64 { return p.slots.MaxLag() }
