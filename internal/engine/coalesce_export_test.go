package engine

// OnCoalesceJoin makes c call f each time a caller joined an identical
// call in flight and set its deadline: the tests' event for "every caller
// has joined".
func OnCoalesceJoin(c *Engine, f func()) {
	c.coalesce.mu.Lock()
	c.coalesce.joined = f
	c.coalesce.mu.Unlock()
}
