package solroute

import (
	"slices"
	"time"

	"github.com/solroute/solroute/internal/pubsub"
	"github.com/solroute/solroute/transport"
)

// SubscriptionStats is a reading of a Client's subscriptions: what its
// subscribe endpoints hold and what they delivered, counted since the
// first subscribe. Endpoints are named by their labels only: no URL, no
// header. Package metrics exports it as the solroute_pubsub_ series.
type SubscriptionStats struct {
	// Endpoints are the subscribe endpoints, best tier first; nil when no
	// endpoint serves the subscribe role. Before the first subscribe each
	// is listed with every count zero (no WebSocket is open yet).
	Endpoints []SubscriptionEndpointStats
	// Streams counts the distinct subscriptions held (identical ones
	// share one), slot subscriptions excluded; Subscriptions counts those
	// callers hold, slot subscriptions included.
	Streams, Subscriptions int
	// Notifications counts the notifications received from every
	// endpoint (each connection's slot heartbeat included); Delivered
	// those delivered; Duplicates those suppressed as delivered already
	// (by another endpoint, or twice); Stale those dropped as older than
	// one delivered; Dropped those a slow reader's buffer let go.
	Notifications, Delivered, Duplicates, Stale, Dropped uint64
	// Failovers counts subscriptions lost on an endpoint and placed
	// again; Gaps the gap events delivered (program and logs).
	Failovers, Gaps uint64
	// ReadBacks counts the HTTP reads back (one per batch),
	// ReadBackErrors those that failed, ReadBackDelivered the values they
	// delivered (newer than what the streams had).
	ReadBacks, ReadBackErrors, ReadBackDelivered uint64
}

// SubscriptionEndpointStats is one endpoint's part of SubscriptionStats.
type SubscriptionEndpointStats struct {
	// Name is the endpoint's label; Tier its tier.
	Name string
	Tier int
	// Conns counts its open WebSockets, Dialing those being dialed,
	// Lagging those whose heartbeat trails by more than max_slot_lag.
	Conns, Dialing, Lagging int
	// Subscriptions counts the subscriptions it holds (live or awaiting
	// their answer), heartbeats excluded.
	Subscriptions int
	// Heartbeat is its freshest heartbeat slot (0: none yet).
	Heartbeat uint64
	// BackoffUntil is when it may be dialed again after a failure (zero:
	// now).
	BackoffUntil time.Time
	// Dials counts its dials, DialFailures those that failed,
	// ConnsDropped its connections lost (closed, erroring or stalled),
	// Stalls those lost as stalled, Lags the times a connection fell
	// behind, Refusals the subscribes it refused, CapRefusals those
	// refused for its per-connection cap.
	Dials, DialFailures, ConnsDropped, Stalls, Lags, Refusals, CapRefusals uint64
	// Notifications counts the notifications it sent, FirstDeliveries
	// those it delivered first.
	Notifications, FirstDeliveries uint64
	// LastError is its last failure, redacted (it names the endpoint by
	// its label); "" when none.
	LastError string
}

// SubscriptionStats reads the client's subscription counters and state
// at one instant; every count is zero until the first subscribe. It is
// safe for concurrent use and cheap enough for every scrape.
func (c *Client) SubscriptionStats() SubscriptionStats { return c.subs.stats() }

// stats reads the engine, or lists the endpoints before it started.
func (s *subscriptions) stats() SubscriptionStats { return statsOf(s.snapshot()) }

// snapshot reads the engine, or lists the endpoints before it started.
func (s *subscriptions) snapshot() pubsub.Snapshot {
	s.mu.Lock()
	e := s.eng
	s.mu.Unlock()
	if e != nil {
		return e.Snapshot()
	}
	var out pubsub.Snapshot
	for _, ep := range s.endpoints {
		out.Endpoints = append(out.Endpoints, pubsub.EndpointSnapshot{Name: ep.Name, Tier: ep.Tier})
	}
	slices.SortStableFunc(out.Endpoints, func(a, b pubsub.EndpointSnapshot) int { return a.Tier - b.Tier })
	return out
}

// statsOf copies the engine's snapshot.
func statsOf(p pubsub.Snapshot) SubscriptionStats {
	s := SubscriptionStats{Streams: p.Streams, Subscriptions: p.Subscriptions,
		Notifications: p.Notifications, Delivered: p.Delivered, Duplicates: p.Duplicates, Stale: p.Stale,
		Dropped: p.Dropped, Failovers: p.Failovers, Gaps: p.Gaps,
		ReadBacks: p.ReadBacks, ReadBackErrors: p.ReadBackErrors, ReadBackDelivered: p.ReadBackDelivered}
	for _, ep := range p.Endpoints {
		s.Endpoints = append(s.Endpoints, SubscriptionEndpointStats(ep))
	}
	return s
}

// watch adds each Observer that implements pubsub.Watcher to those the
// engine's events are handed to (package metrics' and tracing's): the
// engine's, whenever it starts, reads them at each event. One that
// implements pubsub.StatsReader (package metrics') is handed the snapshot
// to read at each scrape.
func (s *subscriptions) watch(obs ...transport.Observer) {
	for _, o := range obs {
		if r, ok := o.(pubsub.StatsReader); ok {
			r.ReadSubscriptionStats(s.snapshot)
		}
		w, ok := o.(pubsub.Watcher)
		if !ok {
			continue
		}
		s.watchMu.Lock()
		next := append(append([]pubsub.Watcher(nil), s.loadWatchers()...), w)
		s.watchers.Store(&next)
		s.watchMu.Unlock()
	}
}

// loadWatchers returns the watchers added so far.
func (s *subscriptions) loadWatchers() []pubsub.Watcher {
	if p := s.watchers.Load(); p != nil {
		return *p
	}
	return nil
}

// observe is the engine's Options.Observe: it hands ev to every watcher.
func (s *subscriptions) observe(ev pubsub.Event) {
	for _, w := range s.loadWatchers() {
		w.WatchSubscription(ev)
	}
}
