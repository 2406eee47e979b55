package engine

// OnCoalesceJoin makes c call f (under its coalescing lock) each time a
// caller joins an identical call in flight: the tests' event for "every
// caller has joined".
func OnCoalesceJoin(c *Engine, f func()) {
	c.coalesce.mu.Lock()
	c.coalesce.joined = f
	c.coalesce.mu.Unlock()
}
