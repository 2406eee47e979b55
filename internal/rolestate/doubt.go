package rolestate

import (
	"math"
	"sync/atomic"
	"time"
)

// doubt is when one (endpoint, role) was last put in doubt, as nanoseconds
// since its Runtime's epoch; math.MinInt64 means never. It only moves
// forward: attempts ending together may report out of order.
//
// In doubt is a fact beside the health state, not a state of its own: an
// endpoint in doubt is still Available for reads, which retry safely. It
// says that an attempt there recently ended the way that would leave a
// call that must never be sent twice ambiguous (the endpoint failed and a
// server may have acted), so such calls prefer other endpoints (the pool's
// Request.AvoidDoubt). The pool puts every role of an endpoint in doubt
// together: a read that reset after writing says as much about the next
// send as a send would.
type doubt struct {
	at atomic.Int64
}

// markAt records n as the latest doubtful instant.
func (d *doubt) markAt(n int64) {
	for {
		old := d.at.Load()
		if old >= n || d.at.CompareAndSwap(old, n) {
			return
		}
	}
}

// remainingAt returns how long the doubt still runs at n, for a window of
// w: 0 when it does not (never marked, or over).
func (d *doubt) remainingAt(n int64, w time.Duration) time.Duration {
	at := d.at.Load()
	if w <= 0 || at == math.MinInt64 {
		return 0
	}
	left := addSat(at, int64(w)) - n
	return time.Duration(max(left, 0))
}

// DoubtedAt puts the role in doubt from now for Options.DoubtWindow.
// A role with no window is never in doubt.
func (r *Runtime) DoubtedAt(now time.Time) {
	_, n := r.advance(now)
	r.doubt.markAt(n)
}

// InDoubtAt reports whether the role is in doubt at now: DoubtedAt was
// called less than Options.DoubtWindow before.
func (r *Runtime) InDoubtAt(now time.Time) bool {
	_, n := r.peek(now)
	return r.doubt.remainingAt(n, r.doubtWindow) > 0
}
