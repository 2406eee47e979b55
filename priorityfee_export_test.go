package solroute

// PriorityFeeWaiting counts the callers waiting on a PriorityFee fetch in
// flight, for the tests that must know every caller joined it before they
// let the fetch end.
func PriorityFeeWaiting(c *Client) int {
	c.fees.mu.Lock()
	defer c.fees.mu.Unlock()
	return c.fees.waiting
}
