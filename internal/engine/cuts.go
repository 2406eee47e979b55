package engine

import (
	"sync/atomic"
	"time"
)

// The adaptive rule's own safety valve. A read's adaptive bound is 3 × a
// p99 from answers of the last seconds; when every endpoint turns slower
// at once (a congested cluster, the client's own network), those answers
// are stale, every first attempt is cut, and the retries that follow
// exhaust the retry budget: calls would fail that the fixed rule lets
// through. A bound that fits cuts about one attempt in a thousand; a
// blackhole among answering peers, only its own small share (balancing
// keeps it under a few percent). So when more than a quarter of the
// attempts the rule bounded in the last one to two seconds were cut by it,
// and at least cutsMin were, the rule stands aside and attempts get the
// fixed rule, whose longer bound lets the slow answers in to teach the
// histograms; it returns by itself once those seconds have passed.
const (
	// cutsWindow is the width of one counting slot; two slots are kept, the
	// current one and the one before.
	cutsWindow = time.Second
	// cutsMin is the least number of cuts that can suspend the rule: fewer
	// are a blackhole's in-flight reads at its onset, or a quiet client.
	cutsMin = 8
	// cutsShare is the share of bounded attempts that, cut, suspend the
	// rule: with every call needing one retry, half its attempts are cut.
	cutsShare = 0.25
)

// cutCounter counts, per slot of cutsWindow on the pool's clock, the
// attempts the adaptive rule bounded and those it cut, in two slots
// chosen by the slot's parity: a slot from an older window is reset by
// the first writer of the new one. Counting is approximate under
// concurrency (a write racing a reset may be lost), which a share over
// hundreds of attempts does not notice. The zero value is ready; it is
// safe for concurrent use and takes no lock.
type cutCounter struct {
	slots [2]cutSlot
}

// cutSlot is one window's counts: which window (its index since the Unix
// epoch), and bounded<<32 | cut.
type cutSlot struct {
	window atomic.Int64
	n      atomic.Uint64
}

// add counts one attempt the adaptive rule bounded, ended at now, and
// whether the bound cut it.
func (c *cutCounter) add(now time.Time, cut bool) {
	w := now.UnixNano() / int64(cutsWindow)
	s := &c.slots[w&1]
	if old := s.window.Load(); old != w && s.window.CompareAndSwap(old, w) {
		s.n.Store(0)
	}
	d := uint64(1) << 32
	if cut {
		d++
	}
	s.n.Add(d)
}

// suspended reports whether the adaptive rule stands aside at now: at
// least cutsMin cuts, and more than cutsShare of the bounded attempts, in
// the current window and the one before.
func (c *cutCounter) suspended(now time.Time) bool {
	w := now.UnixNano() / int64(cutsWindow)
	var bounded, cut uint64
	for i := range c.slots {
		s := &c.slots[i]
		if sw := s.window.Load(); sw == w || sw == w-1 {
			n := s.n.Load()
			bounded += n >> 32
			cut += n & (1<<32 - 1)
		}
	}
	return cut >= cutsMin && float64(cut) > cutsShare*float64(bounded)
}
