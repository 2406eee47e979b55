package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Main is the command-line entry point of `solroute bench`: args are the
// arguments after "bench". It runs the benchmark, writes the Markdown
// report and one SVG chart per scenario, prints where, and returns the exit
// status (0 ok, 1 failure, 2 usage). Flags:
//
//	-md path         Markdown report (default docs/benchmarks.md; "" skips)
//	-img dir         SVG charts (default docs/img; "" skips)
//	-clients list    comma-separated clients (default all)
//	-scenarios list  comma-separated scenarios (default all)
//	-rounds n        measure each cell n times, clients interleaved (default 3)
//	-callers n, -calls n, -send-every n, -call-timeout d, -cell-timeout d, -seed n
//	-isolate         run each cell's cluster in a child process (default true)
//
// When ChildEnv is set, Main serves one cell's cluster to its parent over
// stdin and stdout instead (see Options.Isolate).
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if os.Getenv(ChildEnv) != "" {
		if err := ServeChild(ctx, os.Stdin, stdout); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return 0
	}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are one line, help goes to stdout: below
	var (
		o         Options
		md        = fs.String("md", "docs/benchmarks.md", "write the Markdown report to this `path` (\"\" skips)")
		img       = fs.String("img", "docs/img", "write one SVG chart per scenario into this `dir` (\"\" skips)")
		clients   = fs.String("clients", "", "comma-separated `list` of clients (default all: "+strings.Join(ClientNames(), ",")+")")
		scenarios = fs.String("scenarios", "", "comma-separated `list` of scenarios (default all: "+strings.Join(ScenarioNames(), ",")+")")
		quiet     = fs.Bool("quiet", false, "do not print one line per cell")
	)
	fs.IntVar(&o.Callers, "callers", DefaultCallers, "concurrent callers per cell")
	fs.IntVar(&o.Calls, "calls", DefaultCalls, "measured calls per cell and round")
	fs.IntVar(&o.Rounds, "rounds", DefaultRounds, "measure each cell `n` times, in rounds that run every client once in rotated order;\n"+
		"goodput is the median of the rounds, every other figure pools their calls")
	fs.IntVar(&o.SendEvery, "send-every", DefaultSendEvery, "one call in `n` is a sendTransaction (negative: reads only)")
	fs.DurationVar(&o.CallTimeout, "call-timeout", DefaultCallTimeout, "timeout of one call")
	fs.DurationVar(&o.CellTimeout, "cell-timeout", DefaultCellTimeout, "stop starting calls in a cell after this long, in each round")
	fs.Uint64Var(&o.Seed, "seed", DefaultSeed, "seed of the random faults")
	fs.BoolVar(&o.Isolate, "isolate", true, "run each cell's cluster in a child process, so allocations are the client's only")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, "Usage: solroute bench [flags]\n\n"+
				"Runs one workload through raw net/http, solana-go, go-retryablehttp, a naive\n"+
				"round-robin and solroute (plain, and with hedged reads), against loopback\n"+
				"clusters in six scenarios, and writes a Markdown report and SVG latency\n"+
				"charts. Each cell (client x scenario) is measured -rounds times, the\n"+
				"clients interleaved.\n\nFlags:\n")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			fmt.Fprint(stdout, "\nExample:\n  solroute bench -scenarios healthy,lagging -calls 2000 -rounds 5\n")
			return 0
		}
		fmt.Fprintf(stderr, "solroute bench: %v; run 'solroute bench --help'\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "bench: unexpected arguments %q\n", fs.Args())
		return 2
	}
	o.Clients, o.Scenarios = splitList(*clients), splitList(*scenarios)
	if !*quiet {
		o.Progress = stderr
	}
	r, err := Run(ctx, o)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	r.Command = strings.TrimSpace("go run ./cmd/solroute bench " + strings.Join(args, " "))
	if err := writeFiles(r, *md, *img, stdout); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// writeFiles writes the charts into img and the Markdown into md, linking
// the charts by a path relative to the Markdown file.
func writeFiles(r *Report, md, img string, stdout io.Writer) error {
	if img != "" {
		if err := os.MkdirAll(img, 0o755); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		for _, sc := range r.Scenarios {
			name := filepath.Join(img, SVGName(sc))
			if err := writeFile(name, func(w io.Writer) error { return r.WriteSVG(w, sc) }); err != nil {
				return err
			}
			fmt.Fprintln(stdout, "wrote", name)
		}
	}
	if md == "" {
		return nil
	}
	rel := ""
	if img != "" {
		var err error
		if rel, err = filepath.Rel(filepath.Dir(md), img); err != nil {
			rel = img
		}
		rel = filepath.ToSlash(rel)
	}
	if err := os.MkdirAll(filepath.Dir(md), 0o755); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := writeFile(md, func(w io.Writer) error { return r.WriteMarkdown(w, rel) }); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "wrote", md)
	return nil
}

func writeFile(name string, write func(io.Writer) error) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := write(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("bench: write %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return nil
}

func splitList(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}
