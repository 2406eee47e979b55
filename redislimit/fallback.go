package redislimit

import (
	"math"
	"time"
)

// A bucket's fallback and its return (plans/013, "Faults"). While the
// limiter counts Redis as down (or is closed) a bucket whose lease is
// spent admits from its local share: rate / Replicas with a burst of
// burst / Replicas, empty when it starts, so that the replicas' shares
// together add no burst; a role whose burst is below Replicas holds one
// token at a drawn phase instead (share.go). Each admission from it is
// counted in spends.
//
// When Redis answers again (the grid probe, or any request's answer) the
// bucket admits nothing more from its share, even before its own next
// request: a share admitting beside the shared bucket is what broke the
// bound. It sends one request that asks for no token and charges the
// admissions of the last burst / rate seconds (spends) to the shared
// bucket, then goes back to leases, which start no earlier than the
// settle after the return. A caller meanwhile waits a round trip (or the
// settle), as one that finds its lease empty does.

// mode is where a bucket's admissions come from at an instant.
type mode uint8

const (
	// modeLease: leases from Redis.
	modeLease mode = iota
	// modeFallback: Redis is counted down, or the limiter is closed: the
	// local share.
	modeFallback
	// modeReturning: Redis answers again, and the bucket's fallback
	// spending is on its way back to it: nothing.
	modeReturning
)

// modeAt returns where admissions come from at t, with the lease empty.
// It starts the fallback, or the return, when that begins at t.
func (b *bucket) modeAt(t time.Time) mode {
	if b.l.down.Load() || b.l.closedFlag.Load() {
		b.startFallback(t)
		return modeFallback
	}
	if b.onFallback && b.beginReturn(t) {
		return modeReturning
	}
	return modeLease
}

// startFallback puts the bucket on its fallback at t, empty (also when a
// return was cut short: Redis may have granted meanwhile; a thin share
// draws its phase again), and lists it
// for the limiter's returnAll.
func (b *bucket) startFallback(t time.Time) {
	if b.onFallback && !b.returning {
		return
	}
	switch {
	case b.fallback == nil:
		b.fallback = b.newShare(t)
	default:
		b.startShare(b.fallback, t)
	}
	b.onFallback, b.returning = true, false
	b.l.fellBack(b)
}

// beginReturn starts, at t, the request that carries the bucket's
// fallback admissions back to Redis, unless one is in flight, and reports
// whether the bucket is still returning; with nothing to carry it is back
// on leases at once (false).
func (b *bucket) beginReturn(t time.Time) bool {
	b.returning = true
	if b.inflight {
		return true
	}
	charge := b.spends.within(t)
	if charge == 0 {
		b.onFallback, b.returning = false, false
		return false
	}
	b.send(request{at: t, charge: charge})
	return true
}

// returned takes the answer to the charge request r: the shared bucket
// holds the fallback's admissions; leases again.
func (b *bucket) returned(r request) {
	b.l.stats.charged.Add(uint64(r.charge))
	b.spends.reset()
	b.onFallback, b.returning = false, false
}

// keepReturning, at t after an answer or a request given up on, keeps a
// bucket that fell back on its way back: listed for returnAll while Redis
// is down; once it answers, its return goes on (an answer to an older
// request may have held it, or its charge may have failed).
func (b *bucket) keepReturning(t time.Time) {
	switch {
	case !b.onFallback:
	case b.l.down.Load() || b.l.closedFlag.Load():
		b.l.fellBack(b)
	default:
		b.beginReturn(t)
	}
}

// fallbackReady is ReadyAt on the fallback at t: the local share's
// instant, or an answer's that may land earlier; failing closed,
// closedReady.
func (b *bucket) fallbackReady(t time.Time) time.Time {
	if b.l.failClosed {
		return b.closedReady(t)
	}
	ready := b.fallback.readyAt(t)
	if b.inflight {
		ready = minTime(ready, b.inflightReady(t))
	}
	return ready
}

// never is the wait ReadyAt gives when nothing will ever admit: the
// longest Duration, as the pool's own buckets say it.
const never = time.Duration(math.MaxInt64)

// closedReady is ReadyAt failing closed at t: nothing admits until Redis
// answers, so the instants are those at which an answer may come or a
// request be given up on, each after t and each once; never a round trip
// on from t again and again, which would wake every waiter every
// round-trip estimate for as long as a PING hangs (its timeout is go-redis's,
// in real time, not on the clock). Closed, no answer will ever come.
func (b *bucket) closedReady(t time.Time) time.Time {
	if b.l.closedFlag.Load() {
		return t.Add(never)
	}
	next := time.Unix(0, b.l.nextProbe.Load())
	var ready time.Time
	switch {
	case next.After(t): // the next probe's answer
		ready = next.Add(b.rtt)
	default: // the probe of next is due or in flight
		ready = b.answerReady(next, t)
		if ready.IsZero() { // overdue: the grid instant its failure arms
			ready = nextGrid(t, b.l.retry).Add(b.rtt)
		}
	}
	if b.inflight {
		if own := b.answerReady(b.cur.at, t); !own.IsZero() {
			ready = minTime(ready, own)
		}
	}
	return ready
}

// answerReady returns the first instant after t at which a request sent
// at sent may have changed what the bucket knows: its answer, one
// round-trip estimate on, or the instant it is given up on, OpTimeout on;
// zero when both are past.
func (b *bucket) answerReady(sent, t time.Time) time.Time {
	for _, at := range []time.Time{sent.Add(b.rtt), sent.Add(b.l.opTimeout)} {
		if at.After(t) {
			return at
		}
	}
	return time.Time{}
}
