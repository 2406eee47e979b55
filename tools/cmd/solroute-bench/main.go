package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/solroute/solroute/tools/bench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if os.Getenv(bench.ChildEnv) != "" {
		// This process is a cell's cluster, re-executed by its parent
		// (bench.Options.Isolate): stdout speaks the protocol, so nothing
		// else may be printed.
		err := bench.ServeChild(ctx, os.Stdin, os.Stdout)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(exitFailed)
		}
		os.Exit(exitOK)
	}
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
