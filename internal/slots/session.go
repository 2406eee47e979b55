package slots

import (
	"sync"
	"sync/atomic"
)

// Monotonic reads (plans/009-consistency.md): a Session keeps the highest
// context slot returned per commitment; a read asks for at least that
// slot (minContextSlot) where the method takes one, and an answer below it
// is stale: retried elsewhere, or a *transport.StaleError.

// Session is a high-water mark of the slots returned to one caller, per
// commitment. The zero value is an empty session, ready to use; it is safe
// for concurrent use. A client keeps one of its own (transport.Settings.
// MonotonicReads); solroute.WithSession gives a narrower scope.
type Session struct {
	// marks are the highest context slot returned per commitment: the
	// slot of the bank that served an answer (a -32016 never returns).
	// results are the highest slot getSlot returned (Traits.Result): a
	// node's slot answer, which may run ahead of the bank that serves its
	// next read, so it raises a mark of its own (plans/009-consistency.md).
	marks   [Commitments]atomic.Uint64
	results [Commitments]atomic.Uint64
	// cached holds the marks of methods whose answers carry a cache's
	// slot (Traits.Cached): method name → *atomic.Uint64.
	cached sync.Map
}

// Slot returns the highest slot returned at commitment c (0: none): a
// read's context slot, or getSlot's answer, whichever is higher.
func (s *Session) Slot(c Commitment) uint64 {
	if c >= Commitments {
		return 0
	}
	return max(s.marks[c].Load(), s.results[c].Load())
}

// raise records that a read returned context slot slot at commitment c.
func (s *Session) raise(c Commitment, slot uint64) {
	if c < Commitments {
		raiseMark(&s.marks[c], slot)
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
