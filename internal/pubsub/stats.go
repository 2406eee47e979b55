package pubsub

import "time"

// counters are the engine's totals.
type counters struct {
	notifications, delivered, duplicates, stale, dropped          uint64
	failovers, readBacks, readBackErrors, readBackDelivered, gaps uint64
}

// epCounters are one endpoint's totals.
type epCounters struct {
	dials, dialFailures, connsDropped, stalls, lags, refusals, capRefusals uint64
	notifications, firstDeliveries                                         uint64
}

// Snapshot is a reading of the engine's counters and state. Endpoints are
// named by their labels only.
type Snapshot struct {
	// Endpoints, in the engine's order (by tier).
	Endpoints []EndpointSnapshot
	// Streams counts the distinct subscriptions held (identical ones
	// share one), the slot stream excluded; Subscriptions the
	// subscriptions callers hold, their slot subscriptions included.
	Streams, Subscriptions int
	// Notifications counts the notifications received (heartbeats
	// included), Delivered those delivered, Duplicates those suppressed
	// as already delivered, Stale those dropped as older than one
	// delivered, Dropped those a slow reader's buffer let go.
	Notifications, Delivered, Duplicates, Stale, Dropped uint64
	// Failovers counts subscriptions lost on an endpoint and placed
	// again; Gaps the gap events delivered.
	Failovers, Gaps uint64
	// ReadBacks counts the HTTP reads back made (one per batch),
	// ReadBackErrors those that failed, ReadBackDelivered the values they
	// delivered (newer than the streams').
	ReadBacks, ReadBackErrors, ReadBackDelivered uint64
}

// EndpointSnapshot is one endpoint's part of a Snapshot.
type EndpointSnapshot struct {
	Name string
	Tier int
	// Conns counts its open connections, Dialing those being dialed,
	// Lagging those whose heartbeat trails by more than MaxSlotLag.
	Conns, Dialing, Lagging int
	// Subscriptions counts the subscriptions it holds for streams (live
	// or awaiting their answer), heartbeats excluded.
	Subscriptions int
	// Heartbeat is its freshest heartbeat slot.
	Heartbeat uint64
	// BackoffUntil is when it may be dialed again (zero: now).
	BackoffUntil time.Time
	// Counters.
	Dials, DialFailures, ConnsDropped, Stalls, Lags, Refusals, CapRefusals uint64
	// Notifications counts the notifications it sent, FirstDeliveries
	// those it delivered first.
	Notifications, FirstDeliveries uint64
	// LastError is its last failure, redacted; "" when none.
	LastError string
}

// Snapshot reads the engine's counters and state.
func (e *Engine) Snapshot() Snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.stats
	s := Snapshot{Streams: len(e.streams), Notifications: c.notifications, Delivered: c.delivered,
		Duplicates: c.duplicates, Stale: c.stale, Dropped: c.dropped, Failovers: c.failovers, Gaps: c.gaps,
		ReadBacks: c.readBacks, ReadBackErrors: c.readBackErrors, ReadBackDelivered: c.readBackDelivered}
	for _, st := range e.allStreamsLocked() {
		s.Subscriptions += len(st.subs)
	}
	now := e.clock.Now()
	for _, ep := range e.eps {
		n := ep.counts
		es := EndpointSnapshot{Name: ep.Name, Tier: ep.Tier, Conns: len(ep.conns), Dialing: ep.dialing,
			Subscriptions: ep.legs, Heartbeat: ep.best,
			Dials: n.dials, DialFailures: n.dialFailures, ConnsDropped: n.connsDropped, Stalls: n.stalls, Lags: n.lags,
			Refusals: n.refusals, CapRefusals: n.capRefusals, Notifications: n.notifications, FirstDeliveries: n.firstDeliveries}
		for _, c := range ep.conns {
			if c.lagging {
				es.Lagging++
			}
		}
		if ep.retryAt.After(now) {
			es.BackoffUntil = ep.retryAt
		}
		if ep.lastErr != nil {
			es.LastError = ep.lastErr.Error()
		}
		s.Endpoints = append(s.Endpoints, es)
	}
	return s
}

// EventKind names an Event.
type EventKind uint8

// The events.
const (
	// EventConnUp: a connection's heartbeat is live.
	EventConnUp EventKind = iota
	// EventConnDown: a connection ended (Err says why: closed, stalled,
	// a dial or subscribe failure).
	EventConnDown
	// EventLag: a connection's heartbeat fell more than MaxSlotLag
	// behind; its subscriptions move.
	EventLag
	// EventLegUp: a stream's subscription is live on an endpoint; Latency
	// is the time since it was needed (the subscribe, or the loss it
	// replaces: Replaced).
	EventLegUp
	// EventLegDown: a stream lost its subscription on an endpoint.
	EventLegDown
	// EventGap: a gap event was delivered (From, To).
	EventGap
	// EventReadBack: a read back ran (Err when it failed).
	EventReadBack
)

// Event is something the engine did, for Options.Observe: metrics, logs,
// tests.
type Event struct {
	Kind     EventKind
	At       time.Time
	Endpoint string
	// Method is the stream's subscribe method, for leg and gap events.
	Method   string
	Err      error
	Latency  time.Duration
	Replaced bool
	From, To uint64
}

// emit records an event for Observe. e.mu must be held.
func (e *Engine) emit(ev Event) {
	if e.obs == nil {
		return
	}
	ev.At = e.clock.Now()
	e.events = append(e.events, ev)
}

// Watcher is how package metrics and package tracing see the engine's
// events without an exported hook: the root Client hands every Event to
// each Observer added to it (Client.Observe, Hooks.Observers) that also
// implements Watcher, in order, one call at a time, outside the engine's
// lock. A user cannot implement it (Event is internal); events hold
// endpoint labels and redacted errors only.
type Watcher interface {
	WatchSubscription(Event)
}

// StatsReader is how package metrics reads the engine's Snapshot at each
// scrape without naming the root's SubscriptionStats: metrics must not
// import the root, which imports config. The root hands its snapshot
// function to each Observer added to it that implements StatsReader; the
// function is safe for concurrent use, and lists the subscribe endpoints
// with zero counts before the engine starts.
type StatsReader interface {
	ReadSubscriptionStats(func() Snapshot)
}
