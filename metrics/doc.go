// Package metrics exports what a solroute client does as Prometheus
// series: its calls and attempts as they happen, and its endpoints' state
// at every scrape (plans/012-observability.md, docs/observability.md).
//
// It is a package of its own so that a program that does not import it
// does not link client_golang. The user builds a Collector over a client
// and registers it:
//
//	c, _ := solroute.Open("rpc.toml")
//	prometheus.MustRegister(metrics.New(c, metrics.Options{}))
//
// # Two kinds of series
//
// Event series (calls, attempts, their durations, admission waits, retry
// decisions, hedges, provider delays, ambiguous sends) are counters and
// histograms fed by a transport.Observer that New adds to the client.
// They are updated on the calling goroutine: an event costs a few atomic
// operations and, the first time a label combination is seen, one child
// series. State series (each endpoint's health state, tokens, requests in
// flight, cooldown, doubt, refusals, ejections, error ratio, slot and
// lag, and the retry budget) are read from the client's Snapshot and
// RetryBudget when Prometheus scrapes, so they cost the calls nothing.
//
// # Labels
//
// Endpoints are labelled by their configured name, never by a URL or a
// header: nothing this package is given holds one. A method is labelled
// by its name when the client's registry knows it (built in or declared),
// and as "other" otherwise, so that any number of distinct unknown method
// names makes a bounded number of series; Options.MaxMethods also bounds
// the known ones. Outcomes are "ok" or a retrypolicy.Cause's name
// ("timeout", "rate-limited", ...); retry decisions are a
// retrypolicy.Rule's name ("retry", "budget", "maybe-dispatched", ...).
//
// # Several clients
//
// A Collector's series carry no client label. To register the
// collectors of two clients in one registry, register each through
// prometheus.WrapRegistererWith with a label of your own.
package metrics
