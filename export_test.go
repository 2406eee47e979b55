package solroute

import "github.com/solroute/solroute/internal/pubsub"

// SubscribeActivity reads what the client's subscription engine is doing,
// for the tests that step a fake clock (false before it started).
func SubscribeActivity(c *Client) (pubsub.Activity, bool) {
	s := c.subs
	s.mu.Lock()
	e := s.eng
	s.mu.Unlock()
	if e == nil {
		return pubsub.Activity{}, false
	}
	return e.Activity(), true
}
