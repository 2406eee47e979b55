package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/solroute/solroute/tools/bench"
	"github.com/solroute/solroute/tools/internal/cliflag"
)

// Exit codes.
const (
	// exitOK: the report was written.
	exitOK = 0
	// exitFailed: the benchmark, or writing its report, failed.
	exitFailed = 1
	// exitUsage: a bad flag or argument.
	exitUsage = 2
)

// benchCommand is how the report says it was produced, before the
// arguments: from the repository root, in the tools module, where
// relative paths such as --out ../docs/benchmarks.md are read.
const benchCommand = "cd tools && go run ./cmd/solroute-bench"

// stdoutName is the --out value that writes the report to stdout.
const stdoutName = "-"

const about = `
Run one workload through raw net/http, solana-go, go-retryablehttp, a naive
round-robin and solroute (plain, with slot tracking off, and with hedged
reads), against loopback clusters of fake endpoints in eight scenarios, and
write a Markdown report and one SVG latency chart per scenario. Each cell (client x scenario) is
measured --rounds times, the clients interleaved.

The report goes to --out: stdout by default. Charts go to --img: by
default img/ beside the --out file, none when the report goes to stdout.
Nothing is written anywhere else. Progress, and where each file was
written, go to stderr.

The repository's committed report is regenerated, from the repository
root, with:
  cd tools && go run ./cmd/solroute-bench --out ../docs/benchmarks.md --quiet

Exit codes: 0 success, 1 the benchmark or writing its report failed,
2 a usage error.`

const example = `
solroute-bench --scenarios healthy,lagging --calls 2000 --rounds 5 --out /tmp/bench.md
cd tools && go run ./cmd/solroute-bench --out ../docs/benchmarks.md --quiet`

// run is the whole program but the cluster child (see main): it parses
// args, runs the benchmark and writes its report, and returns the exit
// code. The isolated cells re-execute this program with the same args.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f := cliflag.New("solroute-bench", "solroute-bench [--out FILE] [--img DIR] [flags]", about, example)
	var o bench.Options
	out := f.String("out", stdoutName, "write the Markdown report to `FILE` (\"-\" is stdout)")
	img := f.String("img", "", "write one SVG chart per scenario into `DIR`; \"\" (the default) means img/ beside --out,\n"+
		"and no charts when the report goes to stdout")
	clients := f.String("clients", "", "comma-separated `LIST` of clients (default all: "+strings.Join(bench.ClientNames(), ",")+")")
	scenarios := f.String("scenarios", "", "comma-separated `LIST` of scenarios (default all: "+strings.Join(bench.ScenarioNames(), ",")+")")
	quiet := f.Bool("quiet", false, "do not print one line per cell on stderr")
	f.IntVar(&o.Callers, "callers", bench.DefaultCallers, "`N` concurrent callers per cell")
	f.IntVar(&o.Calls, "calls", bench.DefaultCalls, "`N` measured calls per cell and round")
	f.IntVar(&o.Rounds, "rounds", bench.DefaultRounds, "measure each cell `N` times, in rounds that run every client once in rotated order;\n"+
		"goodput is the median of the rounds, every other figure pools their calls")
	f.IntVar(&o.SendEvery, "send-every", bench.DefaultSendEvery, "one call in `N` is a sendTransaction (negative: reads only)")
	f.DurationVar(&o.CallTimeout, "call-timeout", bench.DefaultCallTimeout, "timeout `D` of one call")
	f.DurationVar(&o.CellTimeout, "cell-timeout", bench.DefaultCellTimeout, "stop starting calls in a cell after `D`, in each round")
	f.Uint64Var(&o.Seed, "seed", bench.DefaultSeed, "seed `N` of the random faults")
	f.BoolVar(&o.Isolate, "isolate", true, "run each cell's cluster in a child process, so allocations are the client's only")
	pos, err := f.Parse(args)
	switch {
	case errors.Is(err, cliflag.ErrHelp):
		f.WriteHelp(stdout)
		return exitOK
	case err != nil:
		return usageError(stderr, "%v", err)
	case len(pos) > 0:
		return usageError(stderr, "unexpected argument %q: solroute-bench takes flags only", pos[0])
	case *out == "":
		return usageError(stderr, "--out must name a file, or - for stdout")
	}
	dest := files{md: *out, img: chartDir(*out, *img)}
	o.Clients, o.Scenarios = splitList(*clients), splitList(*scenarios)
	if !*quiet {
		o.Progress = stderr
	}
	r, err := bench.Run(ctx, o)
	if err != nil {
		fmt.Fprintf(stderr, "solroute-bench: %v\n", err)
		return exitFailed
	}
	r.Command = strings.TrimSpace(benchCommand + " " + strings.Join(args, " "))
	if err := dest.write(r, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "solroute-bench: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// usageError writes "solroute-bench: MESSAGE (see 'solroute-bench
// --help')" on one line and returns exitUsage.
func usageError(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "solroute-bench: %s (see 'solroute-bench --help')\n", fmt.Sprintf(format, args...))
	return exitUsage
}

// chartDir is where the charts go: img when given, else img/ beside the
// report file, else (a report on stdout) nowhere ("").
func chartDir(out, img string) string {
	switch {
	case img != "":
		return img
	case out == stdoutName:
		return ""
	}
	return filepath.Join(filepath.Dir(out), "img")
}

// files are where one report goes: md the Markdown (stdoutName for
// stdout), img the charts' directory ("" for none).
type files struct {
	md, img string
}

// write writes the charts, then the Markdown, which links each chart by a
// path relative to the Markdown file (to the current directory when the
// Markdown goes to stdout). It names each file it wrote on stderr.
func (d files) write(r *bench.Report, stdout, stderr io.Writer) error {
	if d.img != "" {
		if err := os.MkdirAll(d.img, 0o755); err != nil {
			return err
		}
		for _, sc := range r.Scenarios {
			name := filepath.Join(d.img, bench.SVGName(sc))
			if err := writeFile(name, func(w io.Writer) error { return r.WriteSVG(w, sc) }); err != nil {
				return err
			}
			fmt.Fprintln(stderr, "wrote", name)
		}
	}
	link := ""
	if d.img != "" {
		base := "."
		if d.md != stdoutName {
			base = filepath.Dir(d.md)
		}
		var err error
		if link, err = filepath.Rel(base, d.img); err != nil {
			link = d.img
		}
		link = filepath.ToSlash(link)
	}
	if d.md == stdoutName {
		return r.WriteMarkdown(stdout, link)
	}
	if err := os.MkdirAll(filepath.Dir(d.md), 0o755); err != nil {
		return err
	}
	if err := writeFile(d.md, func(w io.Writer) error { return r.WriteMarkdown(w, link) }); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "wrote", d.md)
	return nil
}

// writeFile creates name and fills it with write.
func writeFile(name string, write func(io.Writer) error) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	return f.Close()
}

// splitList splits a comma-separated list; "" is nil (every name).
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
