package pubsub

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// netDialFunc dials a TCP connection.
type netDialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// dialState is one dial in progress: its deadline, kept by the loop on
// the engine's clock, and the TCP connection under it, closed at the
// deadline (gorilla/websocket reads the upgrade answer without a
// context).
type dialState struct {
	ep       *epState
	deadline time.Time
	cancel   context.CancelFunc

	mu      sync.Mutex
	nc      net.Conn
	expired bool
}

// expire ends the dial: its context and its connection.
func (d *dialState) expire() {
	d.cancel()
	d.mu.Lock()
	d.expired = true
	nc := d.nc
	d.mu.Unlock()
	if nc != nil {
		_ = nc.Close()
	}
}

// startDialLocked dials ep in a goroutine. e.mu must be held.
func (e *Engine) startDialLocked(ep *epState) {
	if e.closed {
		return
	}
	ctx, cancel := context.WithCancel(e.ctx)
	d := &dialState{ep: ep, deadline: e.clock.Now().Add(e.set.HandshakeTimeout), cancel: cancel}
	if e.dials == nil {
		e.dials = make(map[*dialState]struct{})
	}
	e.dials[d] = struct{}{}
	ep.dialing++
	ep.counts.dials++
	e.kickLoop()
	e.wg.Add(1)
	go e.dial(ctx, d)
}

// dial runs one dial and its upgrade, then hands the result over.
func (e *Engine) dial(ctx context.Context, d *dialState) {
	defer e.wg.Done()
	defer d.cancel()
	base := e.netDial
	if base == nil {
		base = (&net.Dialer{}).DialContext
	}
	dialer := websocket.Dialer{
		Proxy: http.ProxyFromEnvironment,
		NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			nc, err := base(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			d.mu.Lock()
			defer d.mu.Unlock()
			if d.expired {
				_ = nc.Close()
				return nil, context.DeadlineExceeded
			}
			d.nc = nc
			return nc, nil
		},
	}
	ws, resp, err := dialer.DialContext(ctx, d.ep.target, http.Header(d.ep.header))
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	e.mu.Lock()
	delete(e.dials, d)
	d.ep.dialing--
	switch {
	case err == nil && e.closed:
		_ = ws.Close()
	case err == nil:
		e.connUpLocked(d.ep, ws)
	default:
		d.mu.Lock()
		expired := d.expired
		d.mu.Unlock()
		e.dialFailedLocked(d.ep, err, resp, expired)
	}
	e.unlock()
}

// dialFailedLocked records a failed dial: the endpoint backs off (at
// least its Retry-After on a 429), and what waited for it goes elsewhere.
// e.mu must be held.
func (e *Engine) dialFailedLocked(ep *epState, err error, resp *http.Response, expired bool) {
	if e.closed {
		return
	}
	ep.counts.dialFailures++
	op, floor := "dial", time.Duration(0)
	switch {
	case expired:
		op, err = "handshake", fmt.Errorf("no upgrade within %v", e.set.HandshakeTimeout)
	case resp != nil:
		op, err = "handshake", fmt.Errorf("upgrade answered HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
		if s, perr := strconv.Atoi(resp.Header.Get("Retry-After")); perr == nil && s > 0 {
			floor = min(time.Duration(s)*time.Second, e.set.BackoffMax)
		}
	case errors.Is(err, websocket.ErrBadHandshake):
		op = "handshake"
	}
	cause := &EndpointError{Endpoint: ep.Name, Op: op, Err: ep.secrets.clean(err)}
	e.endpointFaultLocked(ep, cause, floor)
}

// connUpLocked registers a new connection and asks for its heartbeat.
// e.mu must be held.
func (e *Engine) connUpLocked(ep *epState, ws *websocket.Conn) {
	ws.SetReadLimit(maxFrame)
	c := newConn(e, ep, ws)
	ep.conns = append(ep.conns, c)
	id := e.idLocked()
	c.pending[id] = pendingReq{at: c.up}
	c.used = 1
	if ep.limiter != nil {
		ep.limiter.ReserveN(c.up, 1) // the heartbeat's token, taken in advance if need be
	}
	c.send(request(id, "slotSubscribe", nil))
	e.wg.Add(2)
	go c.writeLoop()
	go c.readLoop()
	e.kickLoop()
}

// connFailedLocked ends a connection (closed by the endpoint, stalled,
// refused its heartbeat, a subscribe unanswered): its endpoint backs off
// and its legs go elsewhere. e.mu must be held.
func (e *Engine) connFailedLocked(c *wsConn, op string, err error) {
	if c.closed {
		return
	}
	c.closed = true
	ep := c.ep
	ep.conns = slices.DeleteFunc(ep.conns, func(o *wsConn) bool { return o == c })
	c.shut()
	if e.closed {
		return
	}
	cause := &EndpointError{Endpoint: ep.Name, Op: op, Err: ep.secrets.clean(err)}
	ep.counts.connsDropped++
	if c.ready {
		e.slots.n.failovers++ // a heartbeat lost: the slot stream's leg there
	}
	if op == "stall" {
		ep.counts.stalls++
	}
	e.emit(Event{Kind: EventConnDown, Endpoint: ep.Name, Err: cause})
	e.log.Warn("pubsub: connection lost", "endpoint", ep.Name, "err", cause.Err.Error())
	for _, p := range c.pending {
		if l := p.leg; l != nil {
			e.legLostLocked(l, cause)
		}
	}
	for _, l := range c.legs {
		e.legLostLocked(l, cause)
	}
	c.pending, c.legs = nil, nil
	e.recomputeBestLocked()
	e.endpointFaultLocked(ep, cause, 0)
}

// endpointFaultLocked backs an endpoint off after a fault; when it holds
// no usable connection any more, the legs queued for it go elsewhere.
// e.mu must be held.
func (e *Engine) endpointFaultLocked(ep *epState, cause *EndpointError, floor time.Duration) {
	ep.lastErr = cause
	ep.failures++
	ep.retryAt = e.clock.Now().Add(max(e.backoff(ep.failures), floor))
	if len(ep.conns) == 0 && ep.dialing == 0 {
		queued := ep.queue
		ep.queue = nil
		for _, l := range queued {
			e.legLostLocked(l, cause)
		}
	}
	e.slotsChangedLocked()
	e.reconcileLocked()
	e.kickLoop()
}

// recomputeBestLocked sets each endpoint's and the engine's freshest
// heartbeat from the connections left. e.mu must be held.
func (e *Engine) recomputeBestLocked() {
	e.best = 0
	for _, ep := range e.eps {
		ep.best = 0
		for _, c := range ep.conns {
			ep.best = max(ep.best, c.lastSlot)
		}
		e.best = max(e.best, ep.best)
	}
}

// backoff is the pause after the n-th failure in a row: BackoffMin
// doubled n−1 times, at most BackoffMax, drawn in its upper half (equal
// jitter: never nothing, never in step with other clients).
func (e *Engine) backoff(n int) time.Duration {
	d := e.set.BackoffMin
	for i := 1; i < n && d < e.set.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, e.set.BackoffMax)
	return d/2 + time.Duration(e.rng.Int64N(int64(d/2)+1))
}

// pumpLocked sends the legs queued on ep, on connections with room, as
// its rate allows, and opens connections when they are full. It returns
// when the next token comes (zero: none is awaited). e.mu must be held.
func (e *Engine) pumpLocked(ep *epState) time.Time {
	now := e.clock.Now()
	for len(ep.queue) > 0 {
		c := ep.roomyConn()
		if c == nil {
			e.growLocked(ep)
			return time.Time{}
		}
		if ep.limiter != nil && !ep.limiter.AllowN(now, 1) {
			missing := 1 - ep.limiter.TokensAt(now)
			return now.Add(time.Duration(missing / float64(ep.limiter.Limit()) * float64(time.Second)))
		}
		l := ep.queue[0]
		ep.queue = ep.queue[1:]
		id := e.idLocked()
		l.conn, l.reqID, l.state = c, id, legSent
		c.pending[id] = pendingReq{leg: l, at: now}
		c.used++
		c.send(request(id, l.st.method, l.st.spec.params))
	}
	return time.Time{}
}

// roomyConn is the first ready connection that does not lag and has room.
func (ep *epState) roomyConn() *wsConn {
	for _, c := range ep.conns {
		if c.ready && !c.lagging && c.used < c.capacity {
			return c
		}
	}
	return nil
}

// growLocked opens the connections ep's queue needs, as its limits and
// its backoff allow; legs that no connection can ever take go elsewhere.
// e.mu must be held.
func (e *Engine) growLocked(ep *epState) {
	if e.closed || ep.retryAt.After(e.clock.Now()) {
		return // the loop dials it once the backoff ends
	}
	per := max(1, ep.capacity-1)
	need := (len(ep.queue) + per - 1) / per
	coming := ep.dialing
	for _, c := range ep.conns {
		if !c.ready {
			coming++
		}
	}
	for coming < need && len(ep.conns)+ep.dialing < ep.maxConns && ep.capacity > 1 {
		e.startDialLocked(ep)
		coming++
	}
	if coming == 0 {
		full := &EndpointError{Endpoint: ep.Name, Op: "subscribe", Err: errors.New("no room: every connection is full")}
		queued := ep.queue
		ep.queue = nil
		for _, l := range queued {
			e.legLostLocked(l, full)
		}
		e.reconcileLocked()
	}
}

// sortedEndpoints orders endpoints by tier, keeping the given order
// within one.
func sortedEndpoints(eps []Endpoint) []Endpoint {
	out := slices.Clone(eps)
	slices.SortStableFunc(out, func(a, b Endpoint) int { return a.Tier - b.Tier })
	return out
}

// canonical is a header name as net/http writes it.
func canonical(name string) string { return http.CanonicalHeaderKey(name) }

// basicAuth is an Authorization header value for a user and password.
func basicAuth(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// itoa formats a slot count.
func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// changed wakes whoever waits on the engine's activity.
func (e *Engine) changed() {
	e.mu.Lock()
	e.act.changedLocked()
	e.mu.Unlock()
}
