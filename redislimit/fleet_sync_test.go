package redislimit

// pending returns how many goroutines l has started (requests and probes;
// each ends with one onAnswer), counting a probe whose timer is due but
// whose goroutine has not started yet.
func pending(l *Limiter) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := int(l.started.Load())
	if l.probeTimer != nil && l.nextProbe.Load() <= l.clock.Now().UnixNano() {
		n++
	}
	return n
}
