package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/solroute/solroute/internal/resolve"
)

// fanoutSeries are the fan-out's series (confirm.Options.FanOut,
// Client.SendToMany), fed by the copies' events: the Observer is a
// resolve.CopyWatcher, which the client tells of every copy. Labelled by
// endpoint name only.
type fanoutSeries struct {
	sent, accepted, refused, first *prometheus.CounterVec
}

func newFanoutSeries(ns string) fanoutSeries {
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: "send", Name: name, Help: help}, []string{"endpoint"})
	}
	return fanoutSeries{
		sent: counter("copies_total",
			"Copies of a fanned-out transaction sent to the endpoint, rebroadcasts included: each a deliberate send of the same signed bytes."),
		accepted: counter("copies_accepted_total",
			"Copies the endpoint answered with the signature (or that it was already processed)."),
		refused: counter("copies_refused_total",
			"Copies the endpoint refused with proof that it did not act on them (a 429, a preflight error). Sent minus accepted minus refused were ambiguous."),
		first: counter("first_accepted_landed_total",
			"Fanned-out transactions that landed, by the endpoint that accepted a copy first (which copy landed cannot be told: this is the fastest acceptor)."),
	}
}

// vecs are the fan-out's series.
func (f *fanoutSeries) vecs() []prometheus.Collector {
	return []prometheus.Collector{f.sent, f.accepted, f.refused, f.first}
}

var _ resolve.CopyWatcher = observer{}

// CopyEnded counts a copy sent to endpoint, and its outcome.
func (o observer) CopyEnded(endpoint string, accepted, refused bool) {
	f := &o.c.fanout
	name := label(endpoint)
	f.sent.WithLabelValues(name).Inc()
	switch {
	case accepted:
		f.accepted.WithLabelValues(name).Inc()
	case refused:
		f.refused.WithLabelValues(name).Inc()
	}
}

// FirstAccepted counts a landed fan-out by the endpoint that accepted a
// copy first.
func (o observer) FirstAccepted(endpoint string) {
	o.c.fanout.first.WithLabelValues(label(endpoint)).Inc()
}
