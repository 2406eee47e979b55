package metrics

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/solroute/solroute/internal/pubsub"
)

// pubsubSeries are the subscription series: the resubscribe histogram,
// fed by the engine's events (the Observer is a pubsub.Watcher), and the
// descriptions of those read from SubscriptionStats at each scrape.
type pubsubSeries struct {
	resubscribe *prometheus.HistogramVec
	// read reads the engine's snapshot: handed over by the client
	// (pubsub.StatsReader) when the Collector's Observer is added.
	read atomic.Pointer[func() pubsub.Snapshot]

	// Per endpoint.
	conns, lagging, subs, heartbeat           *prometheus.Desc
	notifications, firsts                     *prometheus.Desc
	dialFailures, connsLost, stalls, refusals *prometheus.Desc
	// The engine's, over every endpoint.
	streams, duplicates, stale, dropped        *prometheus.Desc
	failovers, gaps, readBacks, readBackErrors *prometheus.Desc
}

func newPubsubSeries(o Options) pubsubSeries {
	ns := o.Namespace
	desc := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(ns, "pubsub", name), help, labels, nil)
	}
	ep := "endpoint"
	return pubsubSeries{
		resubscribe: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Subsystem: "pubsub",
			Name:    "resubscribe_duration_seconds",
			Help:    "Time from a subscription's loss on an endpoint to its replacement live, by the endpoint that took it.",
			Buckets: append([]float64(nil), o.DurationBuckets...)}, []string{ep}),
		conns:     desc("connections", "WebSockets open to the endpoint now.", ep),
		lagging:   desc("lagging_connections", "WebSockets to the endpoint whose slot heartbeat trails by more than max_slot_lag.", ep),
		subs:      desc("subscriptions", "Subscriptions the endpoint holds now (live or awaiting their answer), heartbeats excluded.", ep),
		heartbeat: desc("heartbeat_slot", "Freshest slot the endpoint's heartbeat notified (a slot number); absent until one is known.", ep),
		notifications: desc("notifications_total",
			"Notifications the endpoint sent, slot heartbeats included.", ep),
		firsts: desc("first_deliveries_total",
			"Notifications the endpoint delivered first (the others were duplicates of one delivered).", ep),
		dialFailures: desc("dial_failures_total", "WebSocket dials or upgrades to the endpoint that failed.", ep),
		connsLost: desc("connections_lost_total",
			"WebSockets to the endpoint lost: closed, erroring or stalled (each moves its subscriptions).", ep),
		stalls:   desc("stalls_total", "WebSockets to the endpoint lost as stalled: open but silent while others moved.", ep),
		refusals: desc("refusals_total", "Subscribes the endpoint refused (its per-connection cap included).", ep),
		streams: desc("streams",
			"Distinct subscriptions held (identical ones share one), slot subscriptions excluded."),
		duplicates: desc("duplicate_notifications_total",
			"Notifications suppressed as delivered already (by another endpoint, or twice)."),
		stale: desc("stale_notifications_total",
			"Notifications dropped as older, by context slot, than one delivered."),
		dropped: desc("dropped_notifications_total",
			"Notifications a slow reader's buffer let go (conflated to the latest, or the oldest dropped)."),
		failovers: desc("failovers_total", "Subscriptions lost on an endpoint and placed again."),
		gaps:      desc("gaps_total", "Gap events delivered: program or logs notifications of a slot range may be missing."),
		readBacks: desc("read_backs_total",
			"HTTP reads back after a switch (getMultipleAccounts, getSignatureStatuses; one per batch)."),
		readBackErrors: desc("read_back_errors_total", "HTTP reads back that failed."),
	}
}

func (p *pubsubSeries) descs() []*prometheus.Desc {
	return []*prometheus.Desc{p.conns, p.lagging, p.subs, p.heartbeat, p.notifications, p.firsts,
		p.dialFailures, p.connsLost, p.stalls, p.refusals, p.streams, p.duplicates, p.stale, p.dropped,
		p.failovers, p.gaps, p.readBacks, p.readBackErrors}
}

func (p *pubsubSeries) describe(ch chan<- *prometheus.Desc) {
	p.resubscribe.Describe(ch)
	for _, d := range p.descs() {
		ch <- d
	}
}

// collect sends the histogram, then the series of src's stats when src
// holds subscriptions and has a subscribe endpoint.
func (p *pubsubSeries) collect(ch chan<- prometheus.Metric, src Source) {
	p.resubscribe.Collect(ch)
	read := p.read.Load()
	if read == nil {
		return // a Source that holds no subscriptions (not a *solroute.Client)
	}
	s := (*read)()
	if len(s.Endpoints) == 0 {
		return // no endpoint serves the subscribe role
	}
	send := func(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
		m, err := prometheus.NewConstMetric(d, t, v, labels...)
		if err != nil {
			m = prometheus.NewInvalidMetric(d, err)
		}
		ch <- m
	}
	gauge := func(d *prometheus.Desc, v int, labels ...string) {
		send(d, prometheus.GaugeValue, float64(v), labels...)
	}
	counter := func(d *prometheus.Desc, v uint64, labels ...string) {
		send(d, prometheus.CounterValue, float64(v), labels...)
	}
	for i := range s.Endpoints {
		e := &s.Endpoints[i]
		name := label(e.Name)
		gauge(p.conns, e.Conns, name)
		gauge(p.lagging, e.Lagging, name)
		gauge(p.subs, e.Subscriptions, name)
		if e.Heartbeat > 0 {
			send(p.heartbeat, prometheus.GaugeValue, float64(e.Heartbeat), name)
		}
		counter(p.notifications, e.Notifications, name)
		counter(p.firsts, e.FirstDeliveries, name)
		counter(p.dialFailures, e.DialFailures, name)
		counter(p.connsLost, e.ConnsDropped, name)
		counter(p.stalls, e.Stalls, name)
		counter(p.refusals, e.Refusals, name)
	}
	gauge(p.streams, s.Streams)
	counter(p.duplicates, s.Duplicates)
	counter(p.stale, s.Stale)
	counter(p.dropped, s.Dropped)
	counter(p.failovers, s.Failovers)
	counter(p.gaps, s.Gaps)
	counter(p.readBacks, s.ReadBacks)
	counter(p.readBackErrors, s.ReadBackErrors)
}

var (
	_ pubsub.Watcher     = observer{}
	_ pubsub.StatsReader = observer{}
)

// ReadSubscriptionStats keeps the client's snapshot function for the
// scrapes.
func (o observer) ReadSubscriptionStats(read func() pubsub.Snapshot) { o.c.pubsub.read.Store(&read) }

// WatchSubscription observes a replacement's latency (a leg live in place
// of one lost). The client hands it every subscription event because the
// observer implements pubsub.Watcher.
func (o observer) WatchSubscription(ev pubsub.Event) {
	if ev.Kind == pubsub.EventLegUp && ev.Replaced {
		o.c.pubsub.resubscribe.WithLabelValues(label(ev.Endpoint)).Observe(ev.Latency.Seconds())
	}
}
