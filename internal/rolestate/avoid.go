package rolestate

import (
	"sync/atomic"
	"time"
)

// History avoidance: an endpoint that answered a history read that it
// lacks the history asked for (retry.LacksHistory) is avoided for that
// method until an instant, per method (the pool numbers its history
// methods 0..n-1). One atomic word per (endpoint, method), written by
// the outcome and read by the choice; no lock, no allocation after
// KeepAvoidances.

// KeepAvoidances makes room for n history methods. Call it once, before
// the endpoint is used concurrently; until then (the zero Shared) no
// method is ever avoided.
func (sh *Shared) KeepAvoidances(n int) {
	if len(sh.avoid) < n {
		sh.avoid = make([]atomic.Int64, n)
	}
}

// AvoidUntil avoids the endpoint for method i until until, unless it is
// already avoided longer. An index out of range changes nothing.
func (sh *Shared) AvoidUntil(i int, until time.Time) {
	if i < 0 || i >= len(sh.avoid) {
		return
	}
	n := until.UnixNano()
	for {
		old := sh.avoid[i].Load()
		if old >= n || sh.avoid[i].CompareAndSwap(old, n) {
			return
		}
	}
}

// AvoidedAt reports whether the endpoint is avoided for method i at now.
func (sh *Shared) AvoidedAt(i int, now time.Time) bool {
	return i >= 0 && i < len(sh.avoid) && now.UnixNano() < sh.avoid[i].Load()
}

// AvoidedFor returns how long the endpoint stays avoided for method i
// from now: 0 when it is not.
func (sh *Shared) AvoidedFor(i int, now time.Time) time.Duration {
	if i < 0 || i >= len(sh.avoid) {
		return 0
	}
	return max(time.Duration(sh.avoid[i].Load()-now.UnixNano()), 0)
}
