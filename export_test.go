package solroute

import "github.com/solroute/solroute/internal/pubsub"

// SubscribeActivity reads what the client's subscription engine is doing,
// for the tests that step a fake clock (false before it started).
func SubscribeActivity(c *Client) (pubsub.Activity, bool) { return c.subs.activity() }
