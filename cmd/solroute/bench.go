package main

import (
	"context"

	"github.com/solroute/solroute/internal/bench"
)

// runBench hands the whole command line to bench.Main, which owns its flags
// and help. It must print nothing before: with -isolate (the default) the
// benchmark re-runs this same command line as a child process that speaks
// to its parent over stdout.
func runBench(ctx context.Context, e *env, args []string) int {
	return bench.Main(ctx, args, e.stdout, e.stderr)
}
