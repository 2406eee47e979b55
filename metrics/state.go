package metrics

import (
	"math"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/retrypolicy"
)

// stateDescs describe the series read from a snapshot at each scrape.
type stateDescs struct {
	info, state, inFlight, tokens, cooldown, inDoubt        *prometheus.Desc
	admissions, rateLimits, refusals, ejections, errorRatio *prometheus.Desc
	slot, slotLag, excluded                                 *prometheus.Desc
	budgetTokens, callsInFlight, retriesInFlight            *prometheus.Desc
}

func newStateDescs(ns string) stateDescs {
	desc := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(ns, "", name), help, labels, nil)
	}
	er := []string{"endpoint", "role"}
	return stateDescs{
		info: desc("endpoint_info", "Each (endpoint, role) of the pool, with its tier; always 1.",
			"endpoint", "role", "tier"),
		state: desc("endpoint_state", "Passive health state of each (endpoint, role): 1 for the current state, 0 for the others.",
			"endpoint", "role", "state"),
		inFlight: desc("endpoint_requests_in_flight", "Requests the (endpoint, role) has in flight now, each counted against its max_concurrent_requests.", er...),
		tokens: desc("endpoint_tokens",
			"Tokens in the (endpoint, role)'s rate bucket now; absent when the role has no rate limit.", er...),
		cooldown: desc("endpoint_cooldown_remaining_seconds",
			"Time the (endpoint, role) still cools down after a rate limit or an ejection; 0 when it does not.", er...),
		inDoubt: desc("endpoint_in_doubt",
			"1 while the (endpoint, role) is in doubt (it may have dropped a send; sends avoid it), else 0.", er...),
		admissions: desc("endpoint_admissions_total", "Requests the pool admitted to the (endpoint, role).", er...),
		rateLimits: desc("endpoint_rate_limits_total",
			"Rate limits (HTTP 429, JSON-RPC 429) the (endpoint, role) answered; each starts a cooldown.", er...),
		refusals: desc("endpoint_refusals_total",
			"Admissions the pool refused the (endpoint, role) for its own limits, by reason: rate (its token bucket) or concurrency (its cap).",
			"endpoint", "role", "reason"),
		ejections: desc("endpoint_ejections_total",
			"Times the (endpoint, role) was ejected after consecutive failures.", er...),
		errorRatio: desc("endpoint_error_ratio",
			"Share of the (endpoint, role)'s recent outcomes (weighted by e^(-age/10s)) that were its own failures, 0 to 1.", er...),
		slot: desc("endpoint_slot",
			"Latest slot the endpoint answered at (a slot number); absent until one is known.", "endpoint"),
		slotLag: desc("endpoint_lag_slots",
			"How far the endpoint is behind the pool's reference slot, in slots (negative: ahead); absent until its slot is known.", "endpoint"),
		excluded: desc("endpoint_excluded",
			"1 when the cluster guard excluded the endpoint for serving another cluster, else 0.", "endpoint"),
		budgetTokens:  desc("retry_budget_tokens", "Tokens left in the client's retry budget."),
		callsInFlight: desc("calls_in_flight", "Calls under way."),
		retriesInFlight: desc("retries_in_flight",
			"Counted retries under way (those the retry budget limits)."),
	}
}

func (d *stateDescs) all() []*prometheus.Desc {
	return []*prometheus.Desc{d.info, d.state, d.inFlight, d.tokens, d.cooldown, d.inDoubt, d.admissions,
		d.rateLimits, d.refusals, d.ejections, d.errorRatio, d.slot, d.slotLag, d.excluded, d.budgetTokens,
		d.callsInFlight, d.retriesInFlight}
}

func (d *stateDescs) describe(ch chan<- *prometheus.Desc) {
	for _, x := range d.all() {
		ch <- x
	}
}

// collect sends the state series of snaps and the budget u.
func (d *stateDescs) collect(ch chan<- prometheus.Metric, snaps []endpoint.Snapshot, u retrypolicy.Usage) {
	send := func(desc *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
		m, err := prometheus.NewConstMetric(desc, t, v, labels...)
		if err != nil {
			m = prometheus.NewInvalidMetric(desc, err)
		}
		ch <- m
	}
	gauge := func(desc *prometheus.Desc, v float64, labels ...string) {
		send(desc, prometheus.GaugeValue, v, labels...)
	}
	counter := func(desc *prometheus.Desc, v uint64, labels ...string) {
		send(desc, prometheus.CounterValue, float64(v), labels...)
	}
	seen := make(map[string]bool, len(snaps))
	for i := range snaps {
		s := &snaps[i]
		name, role := label(s.Name), s.Role.String()
		gauge(d.info, 1, name, role, strconv.Itoa(s.Tier))
		for h := endpoint.Available; h <= endpoint.Ejected; h++ { // every state, in order
			gauge(d.state, one(s.State == h), name, role, h.String())
		}
		gauge(d.inFlight, float64(s.InFlight), name, role)
		if !math.IsInf(s.Tokens, 0) && !math.IsNaN(s.Tokens) {
			gauge(d.tokens, s.Tokens, name, role)
		}
		gauge(d.cooldown, s.CooldownRemaining.Seconds(), name, role)
		gauge(d.inDoubt, one(s.DoubtRemaining > 0), name, role)
		counter(d.admissions, s.Admitted, name, role)
		counter(d.rateLimits, s.RateLimits, name, role)
		counter(d.refusals, s.RefusedByRate, name, role, "rate")
		counter(d.refusals, s.RefusedByLimit, name, role, "concurrency")
		counter(d.ejections, s.Ejections, name, role)
		gauge(d.errorRatio, s.ErrorRate, name, role)
		if seen[s.Name] { // every role of an endpoint shows the same slot
			continue
		}
		seen[s.Name] = true
		if s.Slot > 0 {
			gauge(d.slot, float64(s.Slot), name)
			gauge(d.slotLag, float64(s.SlotLag), name)
		}
		gauge(d.excluded, one(s.Verification == endpoint.WrongCluster), name)
	}
	gauge(d.budgetTokens, u.Tokens)
	gauge(d.callsInFlight, float64(u.ActiveCalls))
	gauge(d.retriesInFlight, float64(u.ActiveRetries))
}

// one is 1 for true, 0 for false.
func one(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
