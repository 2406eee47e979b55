package pubsub

import (
	"slices"
	"time"
)

// legState is where a stream's subscription on one endpoint stands.
type legState uint8

const (
	legQueued legState = iota // waiting for a connection with room, or a token
	legSent                   // written, not answered
	legLive                   // answered with an id: notifications flow
	legDead
)

// leg is a stream's subscription on one endpoint.
type leg struct {
	st     *stream
	ep     *epState
	conn   *wsConn // nil while queued
	reqID  uint64
	subID  uint64
	state  legState
	orphan bool // its stream ended while it was sent: unsubscribe when answered
}

// stream is one distinct subscription (identical ones share it): its legs
// on endpoints, its tracker and its subscribers.
type stream struct {
	e       *Engine
	spec    *spec
	method  string
	unsub   string
	tracker tracker
	subs    []*subscriber
	legs    []*leg

	excluded map[*epState]*EndpointError // refused its params: never again
	attempts map[*epState]*EndpointError // what each endpoint answered before the stream was live
	cooldown map[*epState]time.Time      // refused otherwise: not before
	strikes  map[*epState]int

	live      int    // legs live
	everLive  bool   // a leg was live once: Subscribe has returned
	coveredTo uint64 // the freshest heartbeat slot a lost leg had covered
	gapOpen   bool   // every leg was lost: the next one closes a gap
	replacing bool   // a leg was lost: the next one up replaces it
	needSince time.Time
	ready     chan struct{} // closed once a leg is live, or the stream failed
	readyOut  bool          // ready is closed
	failed    error
	ended     bool
	last      *item // the last delivered: a new subscriber of an account stream starts with it
	rb        readBack
	n         streamCounts // what its subscribers' Stats read
}

// streamCounts are one stream's part of the engine's counters.
type streamCounts struct{ duplicates, stale, failovers uint64 }

func newStream(e *Engine, sp *spec) *stream {
	m, u, _ := sp.kind.methods()
	return &stream{
		e: e, spec: sp, method: m, unsub: u, tracker: newTracker(sp.kind, 2*e.set.MaxSlotLag+64),
		excluded: make(map[*epState]*EndpointError), attempts: make(map[*epState]*EndpointError),
		cooldown: make(map[*epState]time.Time),
		strikes:  make(map[*epState]int), ready: make(chan struct{}),
	}
}

// offerLocked hands the tracker a notification from ep and delivers it
// when new. e.mu must be held.
func (st *stream) offerLocked(it *item, ep *epState) {
	e := st.e
	switch st.tracker.offer(it) {
	case duplicate:
		e.stats.duplicates++
		st.n.duplicates++
		return
	case stale:
		e.stats.stale++
		st.n.stale++
		return
	}
	if ep != nil {
		it.endpoint = ep.Name
		ep.counts.firstDeliveries++
	}
	st.deliverLocked(it)
	if st.spec.kind == kSignature {
		e.finishStreamLocked(st, ErrDone)
	}
}

// deliverLocked pushes an item to every subscriber. e.mu must be held.
func (st *stream) deliverLocked(it *item) {
	e := st.e
	it.at = e.clock.Now()
	if it.gap == nil {
		st.last = it
		e.stats.delivered++
	}
	for _, s := range st.subs {
		e.stats.dropped += uint64(s.push(it))
	}
}

// end ends every subscriber with err once read. e.mu must be held.
func (st *stream) end(err error) {
	st.ended = true
	for _, s := range st.subs {
		s.finish(err)
	}
	if !st.everLive && st.failed == nil {
		st.failed = err
	}
	st.closeReady()
}

// closeReady releases Subscribe's wait. e.mu must be held.
func (st *stream) closeReady() {
	if !st.readyOut {
		st.readyOut = true
		close(st.ready)
	}
}

// activeLegs counts the legs that hold, or will hold, the stream on an
// endpoint that is not lagging.
func (st *stream) activeLegs() int {
	n := 0
	for _, l := range st.legs {
		if l.state != legDead && (l.conn == nil || !l.conn.lagging) {
			n++
		}
	}
	return n
}

// holds reports whether the stream has a leg on ep that is not dead.
func (st *stream) holds(ep *epState) bool {
	return slices.ContainsFunc(st.legs, func(l *leg) bool { return l.ep == ep && l.state != legDead })
}

// attachLocked finds or makes the stream of sp and adds a subscriber to
// it. e.mu must be held.
func (e *Engine) attachLocked(sp *spec) (*stream, *subscriber) {
	st := e.slots
	if sp.kind != kSlot {
		st = e.streams[sp.key()]
		if st == nil {
			st = newStream(e, sp)
			e.streams[sp.key()] = st
			st.needSince = e.clock.Now()
			e.needy[st] = struct{}{}
			e.placeLocked(st)
		}
	} else if !st.everLive && e.readyConnLocked() {
		st.markLive()
	}
	s := newSubscriber(st, e.set.Buffer)
	st.subs = append(st.subs, s)
	if st.last != nil && st.spec.kind == kAccount {
		s.push(st.last)
	}
	return st, s
}

// markLive records the stream's first live leg. e.mu must be held.
func (st *stream) markLive() {
	st.everLive = true
	st.closeReady()
}

// detachLocked removes a subscriber; the last one out ends the stream and
// unsubscribes its legs. e.mu must be held.
func (e *Engine) detachLocked(s *subscriber) {
	st := s.st
	st.subs = slices.DeleteFunc(st.subs, func(o *subscriber) bool { return o == s })
	if len(st.subs) == 0 && st != e.slots {
		e.finishStreamLocked(st, ErrClosed)
	}
}

// finishStreamLocked ends a stream: its subscribers read what they have,
// then err; its legs are unsubscribed. e.mu must be held.
func (e *Engine) finishStreamLocked(st *stream, err error) {
	if st.ended {
		return
	}
	st.end(err)
	delete(e.streams, st.spec.key())
	delete(e.needy, st)
	e.reads.forget(st)
	for _, l := range st.legs {
		e.dropLegLocked(l, true)
	}
	st.legs = nil
}

// dropLegLocked takes a leg off its endpoint: a queued one leaves the
// queue, a live one is unsubscribed (when unsubscribe), a sent one is
// unsubscribed once answered. e.mu must be held.
func (e *Engine) dropLegLocked(l *leg, unsubscribe bool) {
	switch l.state {
	case legDead:
		return
	case legQueued:
		l.ep.queue = slices.DeleteFunc(l.ep.queue, func(o *leg) bool { return o == l })
	case legSent:
		l.orphan = true
		return // counted until its answer comes (or its connection ends)
	case legLive:
		l.st.live--
		if c := l.conn; c != nil && !c.closed {
			delete(c.legs, l.subID)
			c.used--
			if unsubscribe {
				c.send(request(e.idLocked(), l.st.unsub, unsubscribeParams(l.subID)))
			}
		}
	}
	l.state = legDead
	l.ep.legs--
}

// idLocked returns the next JSON-RPC id. e.mu must be held.
func (e *Engine) idLocked() uint64 {
	e.nextID++
	return e.nextID
}

// readyConnLocked reports whether a connection's heartbeat is live. e.mu
// must be held.
func (e *Engine) readyConnLocked() bool {
	for _, ep := range e.eps {
		for _, c := range ep.conns {
			if c.ready {
				return true
			}
		}
	}
	return false
}

// allDownLocked returns, when no endpoint is up or being dialed, what
// each one last failed with. e.mu must be held.
func (e *Engine) allDownLocked() *SubscribeError {
	err := &SubscribeError{Method: "slotSubscribe"}
	for _, ep := range e.eps {
		if len(ep.conns) > 0 || ep.dialing > 0 || ep.lastErr == nil {
			return nil
		}
		err.Attempts = append(err.Attempts, ep.lastErr)
	}
	return err
}
