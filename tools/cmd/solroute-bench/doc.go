// Command solroute-bench runs one workload side by side through raw
// net/http, solana-go, go-retryablehttp, a naive round-robin and solroute
// (plain, with slot tracking off, with hedged reads at 50 ms or at
// hedge_after = "auto", with metrics and tracing, and with the fixed
// attempt timeout of before issue 14), against
// loopback clusters of fake endpoints in eight scenarios (the last, an
// endpoint 100 slots behind that answers normally), and writes a Markdown
// report and one SVG latency chart per scenario.
//
// It is a command of its own, apart from cmd/solroute, so that the binary
// users install links neither the benchmark harness (tools/bench) nor
// the comparators it measures (go-retryablehttp). It lives in the
// repository's tools module (tools/go.mod), apart from the library's.
//
// Usage:
//
//	solroute-bench [--out FILE] [--img DIR] [--clients LIST] [--scenarios LIST] [--rounds N] [flags]
//
// The report goes where --out says: stdout by default, never a file the
// command was not told to write. The repository's committed report is
// regenerated from the repository root with
//
//	cd tools && go run ./cmd/solroute-bench --out ../docs/benchmarks.md --quiet
//
// which also writes the charts into docs/img (the --img default: img/
// beside the --out file). docs/cli.md is the full reference.
//
// Exit codes: 0 success; 1 the benchmark or writing its report failed;
// 2 a usage error.
package main
