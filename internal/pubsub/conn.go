package pubsub

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// maxFrame bounds a frame read from an endpoint (an account of 10 MiB,
// base64, in its envelope).
const maxFrame = 32 << 20

// wsConn is one connection to an endpoint: its heartbeat, the legs it
// holds and the requests it awaits (guarded by e.mu), and a writer that
// sends queued frames in order (guarded by wmu).
type wsConn struct {
	e  *Engine
	ep *epState
	ws *websocket.Conn

	capacity  int                   // subscriptions it may hold, the heartbeat included
	used      int                   // subscriptions held or asked for
	pending   map[uint64]pendingReq // requests written, by id
	legs      map[uint64]*leg       // live legs, by subscription id
	hbID      uint64                // the heartbeat's subscription id
	ready     bool                  // the heartbeat is live
	lastFrame time.Time             // the last data frame read
	lastPing  time.Time
	up        time.Time
	lastSlot  uint64 // the freshest heartbeat slot
	gapWait   []*leg // legs live before any slot was heard, whose stream's gap waits for one
	lagging   bool
	closed    bool

	wmu     sync.Mutex
	queue   [][]byte
	pings   int // pings queued, written first
	writing bool
	wclosed bool
	wake    chan struct{}
}

// pendingReq is a request awaiting its answer: a leg's subscribe, or the
// heartbeat's (leg nil).
type pendingReq struct {
	leg *leg
	at  time.Time
}

func newConn(e *Engine, ep *epState, ws *websocket.Conn) *wsConn {
	now := e.clock.Now()
	return &wsConn{
		e: e, ep: ep, ws: ws, capacity: ep.capacity, pending: make(map[uint64]pendingReq),
		legs: make(map[uint64]*leg), lastFrame: now, lastPing: now, up: now, wake: make(chan struct{}, 1),
	}
}

// send queues a text frame for the writer. It never blocks.
func (c *wsConn) send(frame []byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.wclosed {
		return
	}
	c.queue = append(c.queue, frame)
	c.signal()
}

// ping queues a ping, written before the text frames waiting.
func (c *wsConn) ping() {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.wclosed {
		return
	}
	c.pings++
	c.signal()
}

// signal wakes the writer. c.wmu must be held.
func (c *wsConn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// drained reports whether every queued frame is written.
func (c *wsConn) drained() bool {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.wclosed || (len(c.queue) == 0 && c.pings == 0 && !c.writing)
}

// writeLoop writes queued frames in order until the connection ends. A
// write that fails ends the connection: the reader then reports it.
func (c *wsConn) writeLoop() {
	defer c.e.wg.Done()
	for {
		frame, ping, ok := c.next()
		if !ok {
			return
		}
		var err error
		if ping {
			err = c.ws.WriteControl(websocket.PingMessage, nil, time.Time{})
		} else {
			err = c.ws.WriteMessage(websocket.TextMessage, frame)
		}
		c.wmu.Lock()
		c.writing = false
		c.wmu.Unlock()
		if err != nil {
			_ = c.ws.Close()
		}
		c.e.changed()
	}
}

// next takes the next frame to write, waiting for one; false once the
// connection is shut.
func (c *wsConn) next() (frame []byte, ping, ok bool) {
	for {
		c.wmu.Lock()
		switch {
		case c.wclosed:
			c.wmu.Unlock()
			return nil, false, false
		case c.pings > 0:
			c.pings--
			c.writing = true
			c.wmu.Unlock()
			return nil, true, true
		case len(c.queue) > 0:
			frame = c.queue[0]
			c.queue[0] = nil
			c.queue = c.queue[1:]
			c.writing = true
			c.wmu.Unlock()
			return frame, false, true
		}
		c.wmu.Unlock()
		<-c.wake
	}
}

// shut closes the connection and stops its writer.
func (c *wsConn) shut() {
	c.wmu.Lock()
	c.wclosed, c.queue = true, nil
	c.signal()
	c.wmu.Unlock()
	_ = c.ws.Close()
}

// readLoop reads frames until the connection ends, handing each to the
// engine before reading the next (so an endpoint's ping, answered when
// read, comes after every frame before it was handled).
func (c *wsConn) readLoop() {
	e := c.e
	defer e.wg.Done()
	for {
		_, msg, err := c.ws.ReadMessage()
		if err != nil {
			e.mu.Lock()
			e.connFailedLocked(c, "read", err)
			e.unlock()
			return
		}
		e.busyStart()
		in, it, derr := e.parseFrame(msg)
		e.mu.Lock()
		e.handleLocked(c, in, it, derr)
		e.busyDoneLocked()
		e.unlock()
	}
}

// parseFrame decodes a frame, and a notification's result by its method,
// outside the engine's lock.
func (e *Engine) parseFrame(msg []byte) (*inbound, *item, error) {
	var in inbound
	if err := json.Unmarshal(msg, &in); err != nil {
		return nil, nil, err
	}
	if in.Params == nil || in.Method == "" {
		return &in, nil, nil
	}
	k, ok := notificationKind(in.Method)
	if !ok {
		return &in, nil, nil
	}
	it, err := e.decode(k, in.Params.Result)
	return &in, it, err
}

// notificationKind maps a notification method to its kind.
func notificationKind(method string) (kind, bool) {
	for k := kSlot; k <= kLogs; k++ {
		if _, _, n := k.methods(); n == method {
			return k, true
		}
	}
	return 0, false
}

// handleLocked acts on one frame. e.mu must be held.
func (e *Engine) handleLocked(c *wsConn, in *inbound, it *item, derr error) {
	if c.closed || e.closed {
		return
	}
	c.lastFrame = e.clock.Now()
	switch {
	case in == nil:
		e.log.Warn("pubsub: frame that is not JSON", "endpoint", c.ep.Name)
	case in.ID != nil:
		e.answerLocked(c, *in.ID, in)
	case in.Params != nil:
		e.stats.notifications++
		c.ep.counts.notifications++
		if derr != nil || it == nil {
			// The method is the server's text, which may echo its URL's
			// key (as a refusal's message may): redacted like one.
			e.log.Warn("pubsub: notification not understood", "endpoint", c.ep.Name, "method", c.ep.secrets.redact(in.Method))
			return
		}
		if in.Params.Subscription == c.hbID && c.ready && in.Method == "slotNotification" {
			e.heartbeatLocked(c, it)
			return
		}
		if l := c.legs[in.Params.Subscription]; l != nil {
			if l.st.gapOpen && it.slot > c.lastSlot {
				e.closeGapLocked(l, it.slot) // before what the new leg notifies
			}
			l.st.offerLocked(it, c.ep)
		}
	}
}
