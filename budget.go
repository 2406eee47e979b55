package solroute

import "github.com/solroute/solroute/transport"

// ResponseBudget returns the client's response byte budget now: the bytes
// of response bodies it holds, its limit, and how many answers it refused
// (each a call failed with ErrBusy). Package metrics exports it as the
// response_budget_* series.
func (c *Client) ResponseBudget() transport.ResponseBudget { return c.engine.ResponseBudget() }
