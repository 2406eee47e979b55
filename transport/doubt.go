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
// (see ambiguous) by the endpoint's own doing: a reset after the request
// was written, a timeout of the attempt's own, a 5xx, a broken or garbled
// body. The caller's cancellation, the call's deadline cutting an attempt
// short and an answer over our size limit do not count. Calls of class NeverAfterDispatch then use it only as
// a last resort (pool.Request.LastResort): an ambiguous send can never be
// retried, so the place to avoid it is before it is sent. Reads keep
// flowing to the endpoint (they retry safely), so the signal stays fresh
// while the fault lasts and lapses DoubtWindow after it ends.

// noteDoubt records that an attempt on endpoint name just ended with
// outcome o, marking the endpoint in doubt from now on the pool's clock
// when o would have left a send ambiguous through the endpoint's doing.
func (c *Client) noteDoubt(name string, o *outcome) {
	if o.cause == 0 || o.cause == retrypolicy.Canceled || o.local || !ambiguous(o.cause, o.dispatch) {
		return
	}
	c.markDoubt(name)
}

// markDoubt puts endpoint name in doubt from now on the pool's clock.
func (c *Client) markDoubt(name string) {
	ep := c.endpoints[name]
	if c.doubtWindow <= 0 || ep == nil {
		return
	}
	// Keep the latest instant: attempts ending together may store out of
	// order.
	at := int64(c.clock.Since(c.epoch))
	for {
		old := ep.doubtAt.Load()
		if old >= at || ep.doubtAt.CompareAndSwap(old, at) {
			return
		}
	}
}

// lastResorts fills req.LastResort with the endpoints in doubt at now and
// req.LastResortAt with when they may be used: after the patience, or half
// the time left before deadline if that is sooner.
func (c *Client) lastResorts(req *pool.Request, now, deadline time.Time) {
	req.LastResort = c.inDoubt(now)
	if len(req.LastResort) > 0 && c.doubtPatience > 0 {
		req.LastResortAt = now.Add(min(c.doubtPatience, deadline.Sub(now)/2))
	}
}

// inDoubt returns the endpoints in doubt at now: those whose latest
// doubtful attempt ended less than DoubtWindow ago. It allocates only when
// there are some.
func (c *Client) inDoubt(now time.Time) (names []string) {
	if c.doubtWindow <= 0 {
		return nil
	}
	since := int64(now.Sub(c.epoch) - c.doubtWindow)
	for _, ep := range c.endpointList {
		if at := ep.doubtAt.Load(); at > since {
			names = append(names, ep.name)
		}
	}
	return names
}
