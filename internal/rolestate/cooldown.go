package rolestate

import (
	"sync/atomic"
	"time"

	"github.com/solroute/solroute/endpoint"
)

// cooldown is the instant until which one (endpoint, role) pauses after a
// provider rate limit or an ejection, as nanoseconds since its Runtime's
// epoch; 0 means it never cooled down. It only ever moves forward: a
// shorter rate limit or ejection reported later cannot shorten a running
// cooldown.
type cooldown struct {
	until atomic.Int64
}

// activeAt reports whether the cooldown still runs at n (nanoseconds since
// the epoch) and until when.
func (c *cooldown) activeAt(n int64) (active bool, until int64) {
	until = c.until.Load()
	return n < until, until
}

// extend moves the end of the cooldown to until unless it already ends
// then or later, and reports whether it moved it.
func (c *cooldown) extend(until int64) bool {
	for {
		old := c.until.Load()
		if old >= until {
			return false
		}
		if c.until.CompareAndSwap(old, until) {
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
	if r.cool.until.Load() < int64(deadline.Sub(r.epoch)) {
		return false, false
	}
	return true, r.health.load().state() == endpoint.Ejected
}
