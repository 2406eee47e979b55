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

// SubscribeSnapshot reads the client's subscription engine's counters and
// state, for tests (false before it started).
func SubscribeSnapshot(c *Client) (pubsub.Snapshot, bool) {
	s := c.subs
	s.mu.Lock()
	e := s.eng
	s.mu.Unlock()
	if e == nil {
		return pubsub.Snapshot{}, false
	}
	return e.Snapshot(), true
}
