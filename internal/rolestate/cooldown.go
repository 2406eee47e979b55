package rolestate

import (
	"sync/atomic"
	"time"
)

// cooldown is when one (endpoint, role) may be used again, as
// nanoseconds since its Runtime's epoch: rate until a provider's rate
// limit ends, eject until an ejection ends (0: never). They are apart
// because the pool's panic mode passes an ejection and never a rate limit
// (AdmitEjectedAt): one instant for both let an ejection landing during a
// provider's Retry-After relabel it, and panic mode send inside it, and a
// 429 during a longer ejection hold panic mode off past the provider's
// pause. Each only ever moves forward: a shorter rate limit or ejection
// reported later cannot shorten a running one.
type cooldown struct {
	rate, eject atomic.Int64
}

// activeAt reports whether either still runs at n (nanoseconds since the
// epoch) and until when the later ends.
func (c *cooldown) activeAt(n int64) (active bool, until int64) {
	until = max(c.rate.Load(), c.eject.Load())
	return n < until, until
}

// blockAt is what keeps the role at n, and until when: a rate limit
// (BlockedByCooldown) while one runs, then an ejection
// (BlockedByEjection); ok is false when neither does.
func (c *cooldown) blockAt(n int64) (reason BlockReason, until int64, ok bool) {
	if r := c.rate.Load(); n < r {
		return BlockedByCooldown, r, true
	}
	if e := c.eject.Load(); n < e {
		return BlockedByEjection, e, true
	}
	return 0, 0, false
}

// extend moves the end at to until unless it already ends then or later,
// and reports whether it moved it.
func extend(at *atomic.Int64, until int64) bool {
	for {
		old := at.Load()
		if old >= until {
			return false
		}
		if at.CompareAndSwap(old, until) {
			return true
		}
	}
}

// CooledPast reports whether a cooldown known now, a provider's rate
// limit or an ejection, keeps the (endpoint, role) from admitting a
// request until deadline or later, and, when one does, whether it is an
// ejection (which the pool's panic mode may pass: Runtime.AdmitEjectedAt).
// A cooldown ending before deadline leaves time to admit; limits and
// concurrency are not looked at. Two atomic loads, no clock: the
// transport asks it before every attempt it may cut.
func (r *Runtime) CooledPast(deadline time.Time) (cooled, ejected bool) {
	d := int64(deadline.Sub(r.epoch))
	switch {
	case r.cool.rate.Load() >= d:
		return true, false
	case r.cool.eject.Load() >= d:
		return true, true
	}
	return false, false
}
