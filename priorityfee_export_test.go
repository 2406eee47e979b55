package solroute

// PriorityFeeWaiting returns how many callers wait on a PriorityFee fetch
// in flight, and a channel closed when that count next changes: the
// event the tests that must know every caller joined the fetch wait on
// before they let it end.
func PriorityFeeWaiting(c *Client) (int, <-chan struct{}) {
	c.fees.mu.Lock()
	defer c.fees.mu.Unlock()
	if c.fees.moved == nil {
		c.fees.moved = make(chan struct{})
	}
	return c.fees.waiting, c.fees.moved
}
