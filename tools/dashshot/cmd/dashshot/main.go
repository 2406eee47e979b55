// Command dashshot draws docs/grafana/solroute-dashboard.json as an SVG
// from a Prometheus that holds the series: every panel's own queries,
// evaluated over a span of time through the Prometheus HTTP API. It is
// tooling (package dashshot); docs/grafana/regenerate.sh runs it after a
// demo that Prometheus scraped.
//
// Usage:
//
//	cd tools && go run ./dashshot/cmd/dashshot --prometheus http://127.0.0.1:9090 \
//	    --start 1767323045 --end 1767323105
//
// Its paths' defaults are relative to tools/, where that runs it: it
// reads ../docs/grafana/solroute-dashboard.json and writes
// ../docs/img/dashboard.svg.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/solroute/solroute/tools/dashboard"
	"github.com/solroute/solroute/tools/dashshot"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "dashshot:", err)
		os.Exit(1)
	}
}

// repeated is a flag that may be given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ", ") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

func run(ctx context.Context, args []string, stderr io.Writer) error {
	f := flag.NewFlagSet("dashshot", flag.ContinueOnError)
	f.SetOutput(stderr)
	dashPath := f.String("dashboard", filepath.Join("..", dashboard.File), "the dashboard's JSON `file`")
	promURL := f.String("prometheus", "http://127.0.0.1:9090", "the Prometheus server's base `URL`")
	startFlag := f.String("start", "", "start of the span drawn: Unix seconds or RFC 3339 (required)")
	endFlag := f.String("end", "", "end of the span drawn: Unix seconds or RFC 3339 (required)")
	step := f.Duration("step", time.Second, "the queries' `step`")
	rateInterval := f.Duration("rate-interval", 4*time.Second,
		"what $__rate_interval stands for (Grafana: 4 × the data source's scrape interval, at least)")
	out := f.String("out", filepath.Join("..", "docs", "img", "dashboard.svg"), "the SVG `file` to write")
	width := f.Float64("width", dashshot.DefaultWidth, "the picture's width in pixels")
	var vars, notes repeated
	f.Var(&vars, "var", "`name=value` of a template variable (default: every variable All, as .*); repeatable")
	f.Var(&notes, "note", "a `line` to print under the title; repeatable")
	if err := f.Parse(args); err != nil {
		return err
	}
	if f.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", f.Args())
	}
	start, err := parseTime(*startFlag)
	if err != nil {
		return fmt.Errorf("--start: %w", err)
	}
	end, err := parseTime(*endFlag)
	if err != nil {
		return fmt.Errorf("--end: %w", err)
	}
	if !end.After(start) || *step <= 0 {
		return errors.New("want --start before --end and a positive --step")
	}

	b, err := os.ReadFile(*dashPath)
	if err != nil {
		return err
	}
	d, err := dashboard.Parse(b)
	if err != nil {
		return err
	}
	values := map[string]string{
		"__rate_interval": rateInterval.String(),
		"__interval":      step.String(),
		"__range":         end.Sub(start).Round(time.Second).String(),
		"__range_s":       strconv.Itoa(int(end.Sub(start).Seconds())),
	}
	var bar [][2]string
	prom := dashshot.Prometheus{URL: *promURL, HTTP: &http.Client{Timeout: time.Minute}}
	version, err := prom.Version(ctx)
	if err != nil {
		return fmt.Errorf("ask Prometheus its version: %w", err)
	}
	bar = append(bar, [2]string{"Data source", "Prometheus " + version})
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		label := v.Label
		if label == "" {
			label = v.Name
		}
		values[v.Name], bar = ".*", append(bar, [2]string{label, "All"})
	}
	for _, kv := range vars {
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("--var %q: want name=value", kv)
		}
		values[name] = value
		if v, ok := d.Variable(name); ok {
			for i := range bar {
				if bar[i][0] == v.Label || bar[i][0] == v.Name {
					bar[i][1] = value
				}
			}
		}
	}
	bar = append(bar, [2]string{"$__rate_interval", rateInterval.String()}, [2]string{"step", step.String()})

	results, err := dashshot.Evaluate(ctx, prom, d, values, start, end, *step)
	if err != nil {
		return err
	}
	failed := 0
	for id, rs := range results {
		for _, r := range rs {
			if r.Err != nil {
				failed++
				fmt.Fprintf(stderr, "dashshot: panel %d query %s: %v\n", id, r.RefID, r.Err)
			}
		}
	}
	shot := dashshot.Shot{
		Dashboard: d, Start: start, End: end, Step: *step, Results: results, Variables: bar, Width: *width,
		Notes: append([]string{fmt.Sprintf(
			"Drawn by tools/dashshot from this dashboard's own queries, evaluated by Prometheus %s over %s from %s (time axis: offset from the start). Not a Grafana screenshot.",
			version, end.Sub(start).Round(time.Second), start.UTC().Format(time.RFC3339))}, notes...),
	}
	tmp := *out + ".tmp"
	w, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := dashshot.Render(w, shot); err != nil {
		_ = w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, *out); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d queries failed (drawn as such in %s)", failed, *out)
	}
	return nil
}

// parseTime reads Unix seconds (a fraction allowed) or an RFC 3339 time.
func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, errors.New("missing")
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return time.UnixMilli(int64(f * 1e3)).UTC(), nil
	}
	return time.Parse(time.RFC3339, s)
}
