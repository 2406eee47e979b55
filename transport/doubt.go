package transport

import (
	"time"

	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
)

// Defaults of the doubt settings.
const (
	// DefaultDoubtWindow is Settings.DoubtWindow when zero.
	DefaultDoubtWindow = 30 * time.Second
	// DefaultDoubtPatience is Settings.DoubtPatience when zero: well
	// under a slot (400 ms), far under what an ambiguous send costs its
	// caller (polling its signature until the blockhash expires, about a
	// minute).
	DefaultDoubtPatience = 250 * time.Millisecond
)

// An endpoint is in doubt for a while after one of its attempts, of any
// method, ended the way that would have left a sendTransaction ambiguous
// (see ambiguous): a reset after the request was written, a timeout, a
// 5xx, a broken body. Calls of class NeverAfterDispatch then use it only as
// a last resort (pool.Request.LastResort): an ambiguous send can never be
// retried, so the place to avoid it is before it is sent. Reads keep
// flowing to the endpoint (they retry safely), so the signal stays fresh
// while the fault lasts and lapses DoubtWindow after it ends.

// noteDoubt records that an attempt on endpoint name just ended with
// outcome o, marking the endpoint in doubt from now on the pool's clock
// when o would have left a send ambiguous. A caller's own cancellation says
// nothing of the endpoint.
func (c *Client) noteDoubt(name string, o *outcome) {
	if c.doubtWindow <= 0 || o.cause == 0 || o.cause == retrypolicy.Canceled || !ambiguous(o.cause, o.dispatch) {
		return
	}
	if ep := c.endpoints[name]; ep != nil {
		ep.doubtAt.Store(c.clock.Now().UnixNano())
	}
}

// lastResorts fills req.LastResort with the endpoints in doubt at now and
// req.LastResortAt with when they may be used: after the patience, or half
// the time left before deadline if that is sooner.
func (c *Client) lastResorts(req *pool.Request, now, deadline time.Time) {
	req.LastResort = c.inDoubt(nil, now)
	if len(req.LastResort) > 0 && c.doubtPatience > 0 {
		req.LastResortAt = now.Add(min(c.doubtPatience, deadline.Sub(now)/2))
	}
}

// inDoubt appends to dst the endpoints in doubt at now: those whose latest
// doubtful attempt ended less than DoubtWindow ago.
func (c *Client) inDoubt(dst []string, now time.Time) []string {
	if c.doubtWindow <= 0 {
		return dst
	}
	since := now.Add(-c.doubtWindow).UnixNano()
	for _, ep := range c.endpointList {
		if at := ep.doubtAt.Load(); at != 0 && at > since {
			dst = append(dst, ep.name)
		}
	}
	return dst
}
