// Package dashboard reads the Grafana dashboard that solroute ships,
// docs/grafana/solroute-dashboard.json: its panels, their PromQL queries
// and template variables, and the metric names and labels each query
// reads.
//
// It is tooling, in the repository's tools module (tools/go.mod), apart
// from the library's: no library package imports it.
// Its tests check the dashboard against what a real collector (package
// metrics) exports after a run like the demo's, scraped over loopback:
// every metric a query reads exists, with every label it names; every
// panel has a title and a unit; every series the collector exports is on
// the dashboard. tools/dashshot evaluates the same queries through a
// Prometheus and draws the panels.
//
// A query is read by a scan of its tokens (Scan), not a PromQL parser:
// Prometheus's parser is not a dependency of the module, and the scan
// finds what the checks need (selectors, matchers, grouping labels),
// with template variables ($endpoint, $__rate_interval) left in place.
package dashboard
