package pubsub

import "time"

// loop keeps every deadline on the engine's clock: handshakes, stalls,
// silences, unanswered subscribes, pings, backoffs (an endpoint's, and a
// stream's after a refusal), subscribe tokens and reads back.
//
// The timer is made under e.mu, from the reading the tick used, before
// the loop says when it is due: Activity calls the engine quiet only
// then, so a test that advances a fake clock on seeing it quiet always
// finds the timer on the clock. (Made after the lock was released, the
// timer could come after such an Advance and be set that much later: the
// loop would then sleep past its deadline while the test waited for it.)
func (e *Engine) loop() {
	defer e.wg.Done()
	for {
		e.mu.Lock()
		now := e.clock.Now()
		next := e.tickLocked(now)
		t := e.clock.NewTimer(next.Sub(now))
		if len(e.kick) == 0 {
			e.act.loopDue = next
		}
		e.act.changedLocked()
		e.unlock()
		select {
		case <-t.Chan():
		case <-e.kick:
			t.Stop()
		case <-e.closing:
			t.Stop()
			return
		}
		e.mu.Lock()
		e.act.loopDue = time.Time{}
		e.act.changedLocked()
		e.mu.Unlock()
	}
}

// deadline collects the soonest future instant.
type deadline struct {
	now, next time.Time
}

func (d *deadline) at(t time.Time) {
	if t.After(d.now) && t.Before(d.next) {
		d.next = t
	}
}

// tickLocked does what is due at now and returns when to run next. e.mu
// must be held.
func (e *Engine) tickLocked(now time.Time) time.Time {
	d := &deadline{now: now, next: now.Add(time.Hour)}
	if e.closed {
		return d.next
	}
	for ds := range e.dials {
		if !ds.deadline.After(now) {
			ds.expire()
		} else {
			d.at(ds.deadline)
		}
	}
	for _, ep := range e.eps {
		e.tickEndpointLocked(ep, d)
	}
	e.retryCooledLocked(d)
	e.slotTickLocked(d)
	e.launchReadsLocked(d)
	return d.next
}

// tickEndpointLocked keeps an endpoint warm (one connection at least,
// once its backoff ends), sends its queue and checks its connections.
// e.mu must be held.
func (e *Engine) tickEndpointLocked(ep *epState, d *deadline) {
	if ep.retryAt.After(d.now) {
		d.at(ep.retryAt)
	} else if len(ep.conns)+ep.dialing == 0 {
		e.startDialLocked(ep)
	}
	if len(ep.queue) > 0 {
		d.at(e.pumpLocked(ep))
	}
	for _, c := range append([]*wsConn(nil), ep.conns...) {
		e.checkConnLocked(c, d)
	}
}

// stallAfter is the stall deadline: StallSlots of the measured slot time,
// within MinStall and MaxStall.
func (e *Engine) stallAfter() time.Duration {
	return clampDuration(time.Duration(e.set.StallSlots*float64(e.cadence)), e.set.MinStall, e.set.MaxStall)
}

// checkConnLocked ends a stalled, silent or unanswering connection, pings
// it when due and forgives its endpoint's failures once it has lived long
// enough. e.mu must be held.
func (e *Engine) checkConnLocked(c *wsConn, d *deadline) {
	now := d.now
	silent := now.Sub(c.lastFrame)
	if c.ready {
		stall := e.stallAfter()
		switch {
		case silent >= e.set.MaxSilence:
			e.connFailedLocked(c, "stall", errSilent(silent))
			return
		case silent >= stall && e.beats.othersAfter(c, c.lastFrame):
			e.connFailedLocked(c, "stall", errStalled(silent))
			return
		case silent >= stall:
			d.at(now.Add(e.cadence / 2)) // every connection is silent: the chain stopped; look again
		default:
			d.at(c.lastFrame.Add(stall))
		}
		d.at(c.lastFrame.Add(e.set.MaxSilence))
	}
	for _, p := range c.pending {
		if !now.Before(p.at.Add(e.set.SubscribeTimeout)) {
			e.connFailedLocked(c, "subscribe", errUnanswered(e.set.SubscribeTimeout))
			return
		}
		d.at(p.at.Add(e.set.SubscribeTimeout))
	}
	if !now.Before(c.lastPing.Add(e.set.PingInterval)) {
		c.ping()
		c.lastPing = now
	}
	d.at(c.lastPing.Add(e.set.PingInterval))
	if c.ep.failures > 0 && c.ready {
		if !now.Before(c.up.Add(e.set.StableAfter)) {
			c.ep.failures = 0
		} else {
			d.at(c.up.Add(e.set.StableAfter))
		}
	}
}
