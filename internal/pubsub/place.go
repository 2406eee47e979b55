package pubsub

import (
	"errors"
	"fmt"
	"slices"
)

// reconcileLocked places every stream that holds fewer legs than
// Redundancy. e.mu must be held.
func (e *Engine) reconcileLocked() {
	if e.closed {
		return
	}
	for st := range e.needy {
		e.placeLocked(st)
	}
}

// placeLocked gives a stream legs on the best endpoints it lacks, up to
// Redundancy, distinct, best tier first; once it has enough, it lets its
// legs on lagging connections go (a switch made before the break). A
// stream that was never live fails when no endpoint is left to try. e.mu
// must be held.
func (e *Engine) placeLocked(st *stream) {
	if st.ended {
		delete(e.needy, st)
		return
	}
	need := e.set.Redundancy - st.activeLegs()
	for _, ep := range e.candidatesLocked(st) {
		if need <= 0 {
			break
		}
		e.addLegLocked(st, ep)
		need--
	}
	if need > 0 {
		if !st.everLive && st.activeLegs() == 0 {
			e.failStreamLocked(st)
		}
		return
	}
	delete(e.needy, st)
	e.retireLaggingLocked(st)
	st.legs = slices.DeleteFunc(st.legs, func(l *leg) bool { return l.state == legDead })
}

// retireLaggingLocked unsubscribes a stream's legs on lagging connections
// once Redundancy legs are live elsewhere: until then a late leg is
// better than none. e.mu must be held.
func (e *Engine) retireLaggingLocked(st *stream) {
	fresh := 0
	for _, l := range st.legs {
		if l.state == legLive && !l.conn.lagging {
			fresh++
		}
	}
	if fresh < e.set.Redundancy {
		return
	}
	for _, l := range st.legs {
		if l.state == legLive && l.conn.lagging {
			e.stats.failovers++
			st.n.failovers++
			e.emit(Event{Kind: EventLegDown, Endpoint: l.ep.Name, Method: st.method, Err: errLagging})
			e.dropLegLocked(l, true)
		}
	}
}

// candidatesLocked lists the endpoints that may take a leg of st, best
// first: by tier, then fewest legs. e.mu must be held.
func (e *Engine) candidatesLocked(st *stream) []*epState {
	now := e.clock.Now()
	var out []*epState
	for _, ep := range e.eps {
		if st.excluded[ep] != nil || st.cooldown[ep].After(now) || st.holds(ep) || !e.canTakeLocked(ep) {
			continue
		}
		out = append(out, ep)
	}
	slices.SortStableFunc(out, func(a, b *epState) int {
		if a.Tier != b.Tier {
			return a.Tier - b.Tier
		}
		return a.legs - b.legs
	})
	return out
}

// canTakeLocked reports whether ep can take one more leg: it is up (or
// being dialed) and not behind, and has room, now or in connections it
// may still open. e.mu must be held.
func (e *Engine) canTakeLocked(ep *epState) bool {
	now := e.clock.Now()
	room := 0
	up := ep.dialing > 0
	for _, c := range ep.conns {
		if c.lagging {
			continue
		}
		up = true
		room += max(0, c.capacity-c.used)
	}
	if !up && ep.retryAt.After(now) {
		return false // down, in backoff
	}
	if len(ep.conns) > 0 && !up {
		return false // every connection lags
	}
	if ep.capacity > 1 {
		room += (ep.maxConns - len(ep.conns) - ep.dialing) * (ep.capacity - 1)
	}
	return room-len(ep.queue) > 0
}

// addLegLocked queues a leg of st on ep. e.mu must be held.
func (e *Engine) addLegLocked(st *stream, ep *epState) {
	l := &leg{st: st, ep: ep}
	st.legs = append(st.legs, l)
	ep.queue = append(ep.queue, l)
	ep.legs++
	e.pumpLocked(ep)
}

// legLiveLocked records a leg's answer: it is live. The first live leg
// releases Subscribe; every later one reads back (accounts, signatures)
// or closes a gap (programs, logs), since updates may have been missed
// while the stream was short of legs. e.mu must be held.
func (e *Engine) legLiveLocked(l *leg, subID uint64) {
	st, c := l.st, l.conn
	l.state, l.subID = legLive, subID
	c.legs[subID] = l
	st.live++
	first := !st.everLive
	st.markLive()
	e.emit(Event{Kind: EventLegUp, Endpoint: l.ep.Name, Method: st.method,
		Latency: e.clock.Since(st.needSince), Replaced: st.replacing})
	st.replacing = false
	if st.gapOpen {
		e.closeGapLocked(l, c.lastSlot)
	}
	if first || st.spec.kind == kAccount || st.spec.kind == kSignature {
		e.reads.add(st)
		e.kickLoop()
	}
	e.placeLocked(st)
}

// closeGapLocked delivers the failover gap of l's stream: from the slot
// its lost legs had covered (less the commitment depth) to heard, the
// slot l's connection has heard. A connection that has heard no slot yet
// (dialed anew) cannot say where the new leg begins: the gap stays open
// until its first heartbeat, or the leg's first notification, names a
// slot. A connection still behind the covered slot will notify what the
// lost legs missed: no gap then. e.mu must be held.
func (e *Engine) closeGapLocked(l *leg, heard uint64) {
	st := l.st
	if heard == 0 {
		l.conn.gapWait = append(l.conn.gapWait, l)
		return
	}
	st.gapOpen = false
	from := satSub(st.coveredTo+1, commitmentDepth(st.spec.commitment))
	if from > heard {
		return
	}
	g := &GapError{From: from, To: heard, Reason: "failover"}
	e.stats.gaps++
	e.emit(Event{Kind: EventGap, Endpoint: l.ep.Name, Method: st.method, From: g.From, To: g.To})
	st.deliverLocked(&item{gap: g, slot: g.To})
}

// gapWaitersLocked closes the gaps that waited for c to hear a slot,
// those of its legs still live whose stream no other leg closed first.
// e.mu must be held.
func (e *Engine) gapWaitersLocked(c *wsConn) {
	waiting := c.gapWait
	c.gapWait = nil
	for _, l := range waiting {
		if l.state == legLive && l.conn == c && l.st.gapOpen && !l.st.ended {
			e.closeGapLocked(l, c.lastSlot)
		}
	}
}

// legLostLocked records that a leg will not hold the stream (its
// connection ended or lags, or its endpoint refused it): the stream looks
// for another endpoint, and remembers how far the leg had covered. e.mu
// must be held.
func (e *Engine) legLostLocked(l *leg, cause *EndpointError) {
	st := l.st
	wasLive := l.state == legLive
	if l.state != legDead {
		if wasLive {
			st.live--
		}
		l.state = legDead
		l.ep.legs--
	}
	if st.ended {
		return
	}
	if wasLive && l.conn != nil {
		st.coveredTo = max(st.coveredTo, l.conn.lastSlot)
		e.stats.failovers++
		st.n.failovers++
		st.replacing = true
		e.emit(Event{Kind: EventLegDown, Endpoint: l.ep.Name, Method: st.method, Err: cause})
		if st.live == 0 && (st.spec.kind == kProgram || st.spec.kind == kLogs) {
			st.gapOpen = true
		}
	}
	if !st.everLive && cause != nil && st.excluded[l.ep] == nil {
		st.strikes[l.ep]++
		st.cooldown[l.ep] = e.clock.Now().Add(e.backoff(st.strikes[l.ep]))
		st.attempts[l.ep] = cause
	}
	if _, needy := e.needy[st]; !needy {
		st.needSince = e.clock.Now()
		e.needy[st] = struct{}{}
	}
}

// failStreamLocked ends a stream that no endpoint could take before it was
// ever live: Subscribe returns a SubscribeError naming what each endpoint
// answered. e.mu must be held.
func (e *Engine) failStreamLocked(st *stream) {
	err := &SubscribeError{Method: st.method}
	for _, ep := range e.eps {
		a := st.excluded[ep]
		if a != nil {
			err.invalid = true // an endpoint refused the params: they are at fault
		} else if a = st.attempts[ep]; a == nil {
			a = e.unavailableLocked(ep)
		}
		err.Attempts = append(err.Attempts, a)
	}
	st.failed = err
	st.closeReady()
	e.finishStreamLocked(st, err)
}

// unavailableLocked says why ep took no leg of a stream that never asked
// it: its last fault while it has no connection open, else that every
// connection lags, or that none has room. e.mu must be held.
func (e *Engine) unavailableLocked(ep *epState) *EndpointError {
	lagging := len(ep.conns) > 0
	for _, c := range ep.conns {
		lagging = lagging && c.lagging
	}
	switch {
	case len(ep.conns) == 0 && ep.lastErr != nil:
		return ep.lastErr
	case len(ep.conns) == 0:
		return &EndpointError{Endpoint: ep.Name, Op: "dial", Err: errors.New("no connection open")}
	case lagging:
		return &EndpointError{Endpoint: ep.Name, Op: "lag", Err: errLagging}
	}
	return &EndpointError{Endpoint: ep.Name, Op: "subscribe", Err: fmt.Errorf(
		"no room: every connection is full (%d open of %d allowed)", len(ep.conns), ep.maxConns)}
}

// retryCooledLocked places again each stream short of legs whose backoff
// on an endpoint (after a refusal) has ended, so that a refusal keeps it
// off that endpoint for the backoff only, and wakes the loop when the
// next one ends. e.mu must be held.
func (e *Engine) retryCooledLocked(d *deadline) {
	for st := range e.needy {
		due := false
		for ep, t := range st.cooldown {
			if t.After(d.now) {
				d.at(t)
			} else {
				delete(st.cooldown, ep)
				due = true
			}
		}
		if due {
			e.placeLocked(st)
		}
	}
}

// errLagging is why a leg on a lagging connection was let go.
var errLagging = errors.New("pubsub: its connection lags")

// satSub is a − b, clamped at 0.
func satSub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}
