package metrics

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// Source is what a Collector reads: a client it can observe, whose
// endpoints it can snapshot and whose retry budget it can read.
// *solroute.Client satisfies it.
type Source interface {
	// Observe adds an Observer to every call that starts from then on.
	Observe(transport.Observer)
	// Snapshot copies every (endpoint, role) state at one instant.
	Snapshot() []endpoint.Snapshot
	// RetryBudget returns the retry budget's counters now.
	RetryBudget() retrypolicy.Usage
}

// Collector is a prometheus.Collector of one client's series: register it
// on a prometheus.Registerer. Its event series are fed by the Observer
// New added to the client; its state series are read from the client at
// each Collect. It is safe for concurrent use. See the package doc.
type Collector struct {
	src        Source
	maxMethods int

	// Event series (the Observer).
	calls           *prometheus.CounterVec
	callDuration    *prometheus.HistogramVec
	ambiguous       *prometheus.CounterVec
	coalesced       *prometheus.CounterVec
	attempts        *prometheus.CounterVec
	attemptDuration *prometheus.HistogramVec
	admissionWait   *prometheus.HistogramVec
	decisions       *prometheus.CounterVec
	hedges          *prometheus.CounterVec
	providerDelay   *prometheus.HistogramVec
	inDoubtAttempts *prometheus.CounterVec

	// State series (Collect).
	state  stateDescs
	budget budgetDescs // budget.go

	// Subscription series (subscriptions.go).
	pubsub pubsubSeries

	// Fan-out series (fanout.go).
	fanout fanoutSeries

	// mu serialises the writers of methods, labels and endpoints, which
	// the Observer reads with one atomic load each.
	mu        sync.Mutex
	methods   atomic.Pointer[map[string]*methodSeries]
	labels    int // the methods with a label of their own
	other     *methodSeries
	endpoints atomic.Pointer[map[endpointKey]*endpointSeries]
}

// New returns a Collector of src's series and adds its Observer to src:
// every call src starts from then on is counted. Call it once per
// client (the Observer cannot be removed; a second Collector counts
// everything again, in series of its own). New panics with an
// *endpoint.Problem when o is invalid (see Options.Validate).
func New(src Source, o Options) *Collector {
	if err := o.Validate(); err != nil {
		panic(err)
	}
	o = o.normalized()
	c := newEventSeries(o)
	c.src, c.maxMethods = src, o.MaxMethods
	c.other = newMethodSeries(transport.OtherMethod, 0)
	c.methods.Store(&map[string]*methodSeries{})
	eps := map[endpointKey]*endpointSeries{}
	for _, s := range src.Snapshot() {
		k := endpointKey{s.Name, s.Role}
		if eps[k] == nil {
			eps[k] = c.newEndpointSeries(k)
		}
	}
	c.endpoints.Store(&eps)
	src.Observe(observer{c})
	return c
}

// newEventSeries returns a Collector holding the event series (and the
// state series' descriptions) under o's namespace and buckets.
func newEventSeries(o Options) *Collector {
	ns := o.Namespace
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: name, Help: help}, labels)
	}
	histogram := func(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Name: name, Help: help,
			Buckets: slices.Clone(buckets)}, labels)
	}
	return &Collector{
		calls: counter("calls_total",
			"Calls made through the pool, by method, role and outcome: ok, the cause of the last failed attempt, or no-endpoint when no endpoint could serve the call.",
			"method", "role", "outcome"),
		callDuration: histogram("call_duration_seconds",
			"Time calls took, from their start to their return, every attempt, wait and backoff included.",
			o.DurationBuckets, "method", "role"),
		ambiguous: counter("ambiguous_calls_total",
			"Calls that stopped because an attempt may have reached a server and was not resent: a send to check before sending again.",
			"method"),
		coalesced: counter("coalesced_calls_total",
			"Calls that waited for an identical read in flight instead of sending their own (transport.coalesce): each is in calls_total, none made an attempt of its own; one canceled or out of time while waiting counts too.",
			"method"),
		attempts: counter("attempts_total",
			"Attempts the pool admitted, by endpoint, role, method and outcome: ok or the attempt's cause.",
			"endpoint", "role", "method", "outcome"),
		attemptDuration: histogram("attempt_duration_seconds",
			"Time attempts took, from their admission to their outcome.",
			o.DurationBuckets, "endpoint", "role"),
		admissionWait: histogram("admission_wait_seconds",
			"Time attempts waited for the pool to admit them: a token, a free slot, the end of a cooldown.",
			o.WaitBuckets, "endpoint", "role"),
		decisions: counter("retry_decisions_total",
			"What calls did after a failed attempt, by the retry policy's rule: retry, transparent-retry, or why they stopped.",
			"method", "decision"),
		hedges: counter("hedges_total",
			"Attempts sent as hedges while an earlier attempt of the same call still ran, by the endpoint that took the hedge.",
			"endpoint", "role"),
		providerDelay: histogram("provider_delay_seconds",
			"Delays providers asked for with Retry-After on a 429 or a 503.",
			o.DelayBuckets, "endpoint", "role"),
		inDoubtAttempts: counter("in_doubt_attempts_total",
			"Sends routed, as a last resort, to an endpoint in doubt (one that may have dropped an earlier send).",
			"endpoint"),
		state:  newStateDescs(ns),
		pubsub: newPubsubSeries(o),
		fanout: newFanoutSeries(ns),
		budget: newBudgetDescs(ns),
	}
}

// vecs are the event series.
func (c *Collector) vecs() []prometheus.Collector {
	return append([]prometheus.Collector{c.calls, c.callDuration, c.ambiguous, c.coalesced, c.attempts, c.attemptDuration,
		c.admissionWait, c.decisions, c.hedges, c.providerDelay, c.inDoubtAttempts}, c.fanout.vecs()...)
}

// Describe sends the descriptor of every series the Collector makes.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, v := range c.vecs() {
		v.Describe(ch)
	}
	c.state.describe(ch)
	c.pubsub.describe(ch)
	c.budget.describe(ch)
}

// Collect sends the event series, then reads the client's snapshot and
// retry budget and sends the state series.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	for _, v := range c.vecs() {
		v.Collect(ch)
	}
	c.state.collect(ch, c.src.Snapshot(), c.src.RetryBudget())
	c.pubsub.collect(ch, c.src)
	c.budget.collect(ch, c.src)
}

// method returns the series of call's method: its own when the registry
// knows it and the bound allows, else those of "other".
func (c *Collector) method(call *transport.CallInfo) *methodSeries {
	if !call.Known {
		return c.other
	}
	if m := (*c.methods.Load())[call.Method]; m != nil {
		return m
	}
	return c.addMethod(call.Method)
}

// addMethod adds name to the methods, with a label of its own while the
// bound allows, else as "other" (so that its next call finds it at once).
func (c *Collector) addMethod(name string) *methodSeries {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur := *c.methods.Load()
	if m := cur[name]; m != nil {
		return m
	}
	m := c.other
	if c.labels < c.maxMethods {
		c.labels++
		m = newMethodSeries(name, c.labels)
	}
	next := maps.Clone(cur)
	next[strings.Clone(name)] = m
	c.methods.Store(&next)
	return m
}

// endpoint returns the series of (name, role), made at the first use of
// a pair New did not see.
func (c *Collector) endpoint(name string, role endpoint.Role) *endpointSeries {
	k := endpointKey{name, role}
	if e := (*c.endpoints.Load())[k]; e != nil {
		return e
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cur := *c.endpoints.Load()
	if e := cur[k]; e != nil {
		return e
	}
	k.name = strings.Clone(name)
	e := c.newEndpointSeries(k)
	next := maps.Clone(cur)
	next[k] = e
	c.endpoints.Store(&next)
	return e
}
