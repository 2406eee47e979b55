package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/confirm"
)

// env is what a command may touch of the outside world. run builds it from
// the process; tests build it with buffers.
type env struct {
	stdout io.Writer
	stderr io.Writer
	// clock measures latencies and paces the demo's progress display.
	clock clockwork.Clock
	// buildInfo reads the binary's build information
	// (debug.ReadBuildInfo), for "solroute version".
	buildInfo func() (*debug.BuildInfo, bool)
	// onPoll, when set, is called after every poll of a resolution
	// (confirm, send --confirm), before it waits for the next: tests
	// advance their fake clock from it. Nil in the binary.
	onPoll func(confirm.Result)
	// onMetrics, when set, is called by "demo --metrics" once the demo
	// has written its summary, while /metrics still serves, with its URL:
	// tests scrape from it. Nil in the binary.
	onMetrics func(url string)
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) int
}

// commands lists the subcommands in the order the help shows them.
func commands() []command {
	return []command{
		{name: "demo", summary: "watch the pool work on an embedded fake cluster (no network)", run: runDemo},
		{name: "serve-fake", summary: "keep a fake cluster up on loopback and print its configuration, to try the commands below on", run: runServeFake},
		{name: "probe", summary: "check each configured endpoint alone: health, version, genesis hash, balance, slot lag", run: runProbe},
		{name: "call", summary: "make one JSON-RPC call through the pool and print the result", run: runCall},
		{name: "send", summary: "send a signed transaction through the pool; with --confirm, wait for its verdict", run: runSend},
		{name: "confirm", summary: "find out whether a sent transaction landed, failed on chain or expired (sends nothing)", run: runConfirm},
		{name: "watch", summary: "subscribe (slot, account, program, signature, logs) across endpoints and print each notification once", run: runWatch},
		{name: "version", summary: "print the module version and VCS revision this binary was built from", run: runVersion},
	}
}

// run is the whole program: it dispatches args to a subcommand and returns
// the process's exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	e := &env{stdout: stdout, stderr: stderr, clock: clockwork.NewRealClock(), buildInfo: debug.ReadBuildInfo}
	return e.dispatch(ctx, args)
}

func (e *env) dispatch(ctx context.Context, args []string) int {
	if len(args) == 0 {
		e.usage(e.stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-version", "--version":
		return e.dispatch(ctx, []string{"version"})
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && name == "help" {
			// "solroute help CMD" is "solroute CMD --help".
			return e.dispatch(ctx, []string{args[1], "--help"})
		}
		e.usage(e.stdout)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(ctx, e, args[1:])
		}
	}
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	hint := ""
	if s, ok := suggest(name, names); ok {
		hint = fmt.Sprintf(" (did you mean %q?)", s)
	}
	fmt.Fprintf(e.stderr, "solroute: unknown command %q%s; run 'solroute --help' for the list\n", name, hint)
	return exitUsage
}

// usage writes the top-level help.
func (e *env) usage(w io.Writer) {
	var b strings.Builder
	b.WriteString("solroute makes many Solana JSON-RPC endpoints look like one reliable one.\n\n")
	b.WriteString("Usage:\n  solroute COMMAND [flags] [arguments]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-10s %s\n", c.name, c.summary)
	}
	b.WriteString("\nRun 'solroute COMMAND --help' for a command's flags and an example.\n")
	b.WriteString("Exit codes: 0 success, 1 call, probe or send failed, 2 usage or config error,\n")
	b.WriteString("3 a transaction may have reached a server and was not resent; confirm and\n")
	b.WriteString("send --confirm: 0 landed, 4 landed with an on-chain error, 5 expired, 6 unknown.\n\n")
	b.WriteString("Example:\n  solroute demo\n")
	_, _ = io.WriteString(w, b.String())
}
