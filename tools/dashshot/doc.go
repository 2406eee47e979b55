// Package dashshot draws a picture of a Grafana dashboard without
// Grafana: it evaluates each panel's own PromQL queries through a
// Prometheus server's HTTP API (query_range over a span of time) and
// renders the panels as one SVG, laid out on Grafana's grid, with titles,
// axes, one line per series and a legend of label values.
//
// It is tooling, in the repository's tools module (tools/go.mod), apart
// from the library's: no library package imports it, and cmd/solroute
// does not link it. Its command, tools/dashshot/cmd/dashshot, makes docs/img/dashboard.svg from the
// dashboard in docs/grafana, filled by a run of "solroute demo" that a
// real Prometheus scraped; docs/grafana/regenerate.sh runs the whole of
// it (docs/grafana/README.md). That needs a Prometheus, so no test runs
// it; the tests cover the parts that need none: the layout, the axes and
// their units, the legend, the palette, the API's JSON and the SVG.
//
// It draws the panel types the dashboard uses: time series (lines, or
// stacked areas, threshold lines, a legend), stats (the last value over
// a sparkline) and state timelines (bands coloured by value mapping). It
// is a picture of what the queries return, not a copy of Grafana's
// rendering.
package dashshot
