package engine

import (
	"context"
	"sync/atomic"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/methods"
)

// A method whose answer carries its node's cache slot (methods.Slots.
// Cached: agave's getLargestAccounts keeps one answer per filter, whatever
// the commitment, for up to two hours) says, with its context.slot, how old
// its value is, not where the node's bank is. Its reads never go back in
// time against the same method's answers in the same session: an answer
// below the highest slot the session got from the method is stale, retried
// elsewhere or a *StaleError. It is held to no other mark and to no
// bounded staleness (a two-hour-old cache is the method's documented
// answer), it raises no commitment's mark and it never feeds the pool's
// lag tracking (a cache's slot would mark an in-step node far behind). An
// answer past what the endpoints' processed banks could hold is an
// outlier (plans/009-consistency.md).

// planCached fills plan for a call of the cached method.
func (c *Engine) planCached(ctx context.Context, method string, sl methods.Slots, plan *slotPlan) {
	*plan = slotPlan{slots: sl, commitment: endpoint.Processed}
	ref, known := c.pool.ReferenceSlot(endpoint.Processed)
	if known {
		plan.ceiling = ref + 2*c.pool.MaxSlotLag()
	}
	session := c.sessionFor(ctx)
	if session == nil {
		return
	}
	plan.session, plan.mark = session, session.cachedMark(method)
	plan.floor = plan.mark.Load()
	if known && plan.floor > ref+poisonedAbove {
		// Taken before any two endpoints agreed, an hour past them: a lie.
		lowerMark(plan.mark, ref)
		plan.floor = ref
	}
}

// cachedMark returns the session's mark of a cached method.
func (s *Session) cachedMark(method string) *atomic.Uint64 {
	if m, ok := s.cached.Load(method); ok {
		return m.(*atomic.Uint64)
	}
	m, _ := s.cached.LoadOrStore(method, new(atomic.Uint64))
	return m.(*atomic.Uint64)
}

// raiseMark sets m to slot if it is above it.
func raiseMark(m *atomic.Uint64, slot uint64) {
	for {
		old := m.Load()
		if slot <= old || m.CompareAndSwap(old, slot) {
			return
		}
	}
}

// lowerMark sets m to slot if it is below it.
func lowerMark(m *atomic.Uint64, slot uint64) {
	for {
		old := m.Load()
		if old <= slot || m.CompareAndSwap(old, slot) {
			return
		}
	}
}
