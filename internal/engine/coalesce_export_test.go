package engine

// OnCoalesceJoin makes c call f each time a caller joined an identical
// call in flight and waits for it, its deadline's timer armed: the tests'
// event for "every caller has joined".
func OnCoalesceJoin(c *Engine, f func()) {
	c.coalesce.mu.Lock()
	c.coalesce.joined = f
	c.coalesce.mu.Unlock()
}
