package rolestate

import "sync/atomic"

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
