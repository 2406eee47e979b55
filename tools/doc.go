// Package tools is the root of the solroute repository's tools module
// (github.com/solroute/solroute/tools, tools/go.mod): the benchmark and
// its command, the Grafana dashboard's checks and the renderer of its
// picture. It holds no code; its test holds the module to its rule.
//
// The module is apart from the library's so that the library's module
// lists no tooling (go list ./...) and its go.mod carries only what the
// library and its own tests need, while docs/benchmarks.md, its charts and
// docs/img/dashboard.svg are still generated from here:
//
//   - bench and cmd/solroute-bench: the side-by-side benchmark
//     (cd tools && go run ./cmd/solroute-bench --out ../docs/benchmarks.md --quiet).
//   - dashboard: reads docs/grafana/solroute-dashboard.json; its tests
//     hold every query to the series a real metrics.Collector exports.
//   - dashshot and dashshot/cmd/dashshot: draw the dashboard from a
//     Prometheus (docs/grafana/regenerate.sh).
//   - internal/cliflag: a copy of the library's flag parser, so that
//     solroute-bench spells its flags as cmd/solroute does.
//
// The rule: the tools use the library as a user does, through its public
// packages only. The go command would let this module import the
// library's internal packages (the check is by import path, and this
// module's path is below the library's), so TestNoLibraryInternals
// enforces it: a benchmark measures what users can build, and the tools
// build against any version of the library's public API. The go.mod
// replaces the library with the working tree (../), so the tools always
// run against the code beside them.
package tools
