package solroute

// SubscriptionCounts are one subscription's counters: what `solroute watch`
// prints when it ends, and what a bot logs to see its redundancy at work.
// Duplicates, Stale and Failovers are counted per distinct subscription,
// shared with identical ones (the same method and parameters).
type SubscriptionCounts struct {
	// Delivered counts the notifications delivered (gaps excluded),
	// Dropped those let go because the reader was slower than the stream.
	Delivered, Dropped uint64
	// Duplicates counts the notifications suppressed as already
	// delivered: the other endpoints' copies. Stale counts those dropped
	// as older, by context slot, than one delivered.
	Duplicates, Stale uint64
	// Failovers counts the times an endpoint's stream of it was lost (a
	// closed, stalled, lagging or erroring connection) and placed again;
	// for slots, the connections lost, each carrying a heartbeat.
	Failovers uint64
}

// Counts reads the subscription's counters.
func (s *Subscription[T]) Counts() SubscriptionCounts {
	n := s.s.Stats()
	return SubscriptionCounts{Delivered: n.Delivered, Dropped: n.Dropped, Duplicates: n.Duplicates, Stale: n.Stale, Failovers: n.Failovers}
}
