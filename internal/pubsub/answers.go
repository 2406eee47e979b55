package pubsub

import (
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// answerLocked acts on a response: the heartbeat's, or a leg's. e.mu must
// be held.
func (e *Engine) answerLocked(c *wsConn, id uint64, in *inbound) {
	p, ok := c.pending[id]
	if !ok {
		return // an unsubscribe's answer
	}
	delete(c.pending, id)
	var subID uint64
	var refusal *RPCError
	if in.Error != nil {
		refusal = &RPCError{Code: in.Error.Code, Message: c.ep.secrets.redact(in.Error.Message)}
	} else if err := json.Unmarshal(in.Result, &subID); err != nil {
		refusal = &RPCError{Code: -32603, Message: "subscribe answered a result that is not a subscription id"}
	}
	if p.leg == nil {
		e.heartbeatAnswerLocked(c, subID, refusal)
		return
	}
	l := p.leg
	switch {
	case l.orphan && refusal == nil:
		c.send(request(e.idLocked(), l.st.unsub, unsubscribeParams(subID)))
		fallthrough
	case l.orphan:
		c.used--
		l.state = legDead
		l.ep.legs--
	case refusal != nil:
		e.legRefusedLocked(c, l, refusal)
	default:
		e.legLiveLocked(l, subID)
	}
}

// heartbeatAnswerLocked makes a connection ready once its heartbeat is
// live: queued legs go out and streams short of legs may use it. A
// connection whose heartbeat is refused cannot be watched: it ends. e.mu
// must be held.
func (e *Engine) heartbeatAnswerLocked(c *wsConn, subID uint64, refusal *RPCError) {
	if refusal != nil {
		e.connFailedLocked(c, "subscribe", refusal)
		return
	}
	c.hbID, c.ready = subID, true
	e.emit(Event{Kind: EventConnUp, Endpoint: c.ep.Name})
	e.log.Info("pubsub: connection up", "endpoint", c.ep.Name, "conns", len(c.ep.conns))
	if !e.slots.everLive {
		e.slots.markLive()
	}
	e.pumpLocked(c.ep)
	e.reconcileLocked()
}

// legRefusedLocked acts on a subscribe an endpoint refused: -32602 rules
// the endpoint out for the stream (its params are at fault); a refusal
// that names a limit on a connection holding subscriptions teaches that
// connection its cap (what it holds or asked for) and the leg waits for
// room. Any other refusal keeps the stream off the endpoint for a
// backoff, a limit named on a connection holding nothing but its
// heartbeat included: that is no cap of the connection's (the node's
// own, or a passing one), and learning one would leave it unusable. e.mu
// must be held.
func (e *Engine) legRefusedLocked(c *wsConn, l *leg, r *RPCError) {
	ep, st := c.ep, l.st
	c.used--
	ep.counts.refusals++
	cause := &EndpointError{Endpoint: ep.Name, Op: "subscribe", Err: r}
	limit := capacityRefusal(r)
	if limit {
		ep.counts.capRefusals++
	}
	switch {
	case r.Code == -32602:
		st.excluded[ep] = cause
	case limit && len(c.legs) > 0:
		c.capacity = c.used // this connection's only: one dialed anew starts at the endpoint's
		l.state, l.conn = legQueued, nil
		ep.queue = append([]*leg{l}, ep.queue...)
		e.pumpLocked(ep)
		return
	default:
		st.strikes[ep]++
		st.cooldown[ep] = e.clock.Now().Add(e.backoff(st.strikes[ep]))
	}
	if !st.everLive {
		st.attempts[ep] = cause
	}
	e.legLostLocked(l, cause)
	e.placeLocked(st)
}

// capacityRefusal reports whether a refusal is a subscription limit:
// agave's -32603 "Subscription refused. Node subscription limit reached",
// or any message that names a limit.
func capacityRefusal(r *RPCError) bool {
	m := strings.ToLower(r.Message)
	return strings.Contains(m, "limit") || strings.Contains(m, "too many subscriptions") || strings.Contains(m, "max number of subscriptions")
}

// heartbeatLocked acts on a heartbeat: the connection's slot, the
// engine's freshest one and the measured slot time, the slot stream, and
// the lag rule. e.mu must be held.
func (e *Engine) heartbeatLocked(c *wsConn, it *item) {
	now := e.clock.Now()
	c.lastSlot = max(c.lastSlot, it.slot)
	if len(c.gapWait) > 0 {
		e.gapWaitersLocked(c)
	}
	c.ep.best = max(c.ep.best, c.lastSlot)
	if it.slot > e.best {
		if e.beats.bestAt != (time.Time{}) && e.best > 0 {
			if dt := now.Sub(e.beats.bestAt); dt > 0 {
				sample := dt / time.Duration(it.slot-e.best)
				e.cadence = clampDuration((4*e.cadence+sample)/5, 100*time.Millisecond, 2*time.Second)
			}
		}
		e.best, e.beats.bestAt = it.slot, now
	}
	e.beats.record(c, now)
	e.slotLocked(it, c)
	behind := e.best - c.lastSlot
	switch {
	case !c.lagging && behind > e.set.MaxSlotLag:
		c.lagging = true
		c.ep.counts.lags++
		cause := &EndpointError{Endpoint: c.ep.Name, Op: "lag", Err: errors.New("heartbeat " + itoa(behind) + " slots behind the freshest")}
		e.emit(Event{Kind: EventLag, Endpoint: c.ep.Name, Err: cause})
		e.log.Warn("pubsub: connection lags; its subscriptions move", "endpoint", c.ep.Name, "behind", behind)
		for _, l := range c.legs {
			if _, needy := e.needy[l.st]; !needy {
				l.st.needSince = now
				l.st.replacing = true
				e.needy[l.st] = struct{}{}
			}
		}
		e.reconcileLocked()
	case c.lagging && behind <= e.set.MaxSlotLag/2:
		c.lagging = false
		e.reconcileLocked()
	}
}

// beats remembers the two freshest heartbeats from distinct connections:
// a connection is stalled only when another one beat after its last frame
// (a chain that stops silences them all, and is no endpoint's fault).
type beats struct {
	last, other struct {
		c  *wsConn
		at time.Time
	}
	bestAt time.Time // when the freshest slot arrived
}

func (b *beats) record(c *wsConn, at time.Time) {
	if b.last.c != c {
		b.other = b.last
	}
	b.last.c, b.last.at = c, at
}

// othersAfter reports whether a connection other than c beat after t.
func (b *beats) othersAfter(c *wsConn, t time.Time) bool {
	if b.last.c != c && b.last.c != nil {
		return b.last.at.After(t)
	}
	return b.other.c != nil && b.other.at.After(t)
}

func clampDuration(d, lo, hi time.Duration) time.Duration { return min(max(d, lo), hi) }
