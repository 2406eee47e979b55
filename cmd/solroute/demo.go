package main

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/transport"
)

const demoAbout = `
Run the pool against an embedded cluster of fake endpoints on loopback —
no network, no configuration — that behaves like the provider mix a bot
has on mainnet. Four tier-0 endpoints: one starts answering HTTP 429 with
Retry-After part-way through and lies (its getSlot 3 slots ahead, its
block heights 40 blocks ahead); one has latency spikes, resets or never
answers some sendTransaction requests after reading them, and garbles a
few answers (a result and an error in one envelope, a duplicate or
case-variant context); one, serving reads only, falls 100 slots behind
the others a fifth of the way through; one, serving reads only, answers
30 % of them at once with the node's own error (-32603). In tier 1 a
backup behaves and a reader never answers; a tier-2 last resort resets
some connections. Every endpoint's slots advance as a node's do, each 0
to 5 slots behind the tip, drifting; the chain stalls for 12 s from 30 %
of the run (no endpoint's slot moves), then about every 90 s.

Callers run a mixed workload through one pool: typed reads (getBalance,
getHealth, getVersion, getGenesisHash), reads through solana-go's client
(getSlot, getLatestBlockhash) and real signed transactions
(sendTransaction). A progress line shows calls/s, success, retries,
fallbacks and the endpoints that are not ok (rate-limited, degraded,
lagging...). The summary gives a per-endpoint table (attempts, latency,
share, balancing cost, slot and lag as the pool sees them, state) with a
legend of its columns, then the calls and the transactions split the same
way, ok, ambiguous (may have reached a server: reported, never resent) or
failed, the retries, fallbacks by tier, p50/p99 latency, the share of reads
the lagging endpoint took once behind and — read from the fake endpoints
themselves — duplicates delivered, which must be 0: a transaction that may
have reached a server is never sent again.

To keep a fake cluster up and try the other commands on it, see
'solroute serve-fake'.

With --metrics ADDR the demo also serves the pool's Prometheus series
(package metrics, docs/observability.md) at http://ADDR/metrics while it
runs, and stops serving when it ends.

Exit code 0, or 1 if a transaction was delivered twice, the run was
interrupted or --metrics could not listen.`

const demoExample = `
solroute demo
solroute demo --duration 30s --callers 16 --seed 7
solroute demo --duration 60s --metrics 127.0.0.1:9464`

// Bounds of the demo's flags.
const (
	defaultDemoDuration = 10 * time.Second
	defaultDemoCallers  = 8
	maxDemoCallers      = 256
)

// runDemo is "solroute demo".
func runDemo(ctx context.Context, e *env, args []string) int {
	f := newFlags("demo", "demo [--duration D] [--seed N] [--callers N] [--metrics ADDR]", demoAbout, demoExample)
	duration := f.Duration("duration", defaultDemoDuration, "run the workload for `D` (a Go duration such as 10s)")
	seed := f.Uint64("seed", 1, "seed `N` of the workload and of the scripted faults: a seed replays the same faults")
	callers := f.Int("callers", defaultDemoCallers, fmt.Sprintf("`N` concurrent callers, 1 to %d", maxDemoCallers))
	metricsAddr := f.String("metrics", "", "serve Prometheus metrics at http://`ADDR`/metrics while the demo runs (host:port; port 0 picks a free one)")
	pos, code, done := f.parse(e, args)
	if done {
		return code
	}
	switch {
	case len(pos) > 0:
		return e.usageError("demo", "unexpected argument %q: demo takes flags only", pos[0])
	case *duration <= 0:
		return e.usageError("demo", "--duration must be positive")
	case *callers < 1 || *callers > maxDemoCallers:
		return e.usageError("demo", "--callers must be between 1 and %d", maxDemoCallers)
	case *metricsAddr != "" && !hostPort(*metricsAddr):
		return e.usageError("demo", "--metrics wants host:port, such as 127.0.0.1:9464")
	}
	return demo{env: e, duration: *duration, seed: *seed, callers: *callers, metrics: *metricsAddr}.run(ctx)
}

// demo is one run of "solroute demo".
type demo struct {
	env      *env
	duration time.Duration
	seed     uint64
	callers  int
	metrics  string // --metrics: where to serve /metrics; "" for nowhere
}

func (d demo) run(ctx context.Context) int {
	e := d.env
	cluster, err := startCluster(demoMembers(d.seed, e.clock, d.duration))
	if err != nil {
		fmt.Fprintf(e.stderr, "solroute demo: cannot start the embedded cluster: %v\n", err)
		return exitFailed
	}
	defer cluster.Close()
	stats := newDemoStats()
	c, err := solroute.FromDocument(demoConfig(cluster), solroute.Hooks{Clock: e.clock, Observers: []transport.Observer{onAttempt(stats.attempt)}})
	if err != nil {
		fmt.Fprintf(e.stderr, "solroute demo: %v\n", err)
		return exitFailed
	}
	defer c.Close()
	var ms *metricsServer
	if d.metrics != "" {
		if ms, err = serveMetrics(d.metrics, c); err != nil {
			fmt.Fprintf(e.stderr, "solroute demo: cannot serve metrics: %v\n", err)
			return exitFailed
		}
		defer ms.close()
	}
	sol := c.RPC()
	w := &workload{clock: e.clock, typed: c, sol: sol, stats: stats, seed: d.seed, ops: demoOperations(),
		stalls: cluster.Server(demoPrimaryA).StallWindows(e.clock.Now().Add(d.duration))}

	d.writeHeader(ms)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { rateLimitWindow(runCtx, e.clock, cluster.Server(demoPrimaryA), d.duration) })
	wg.Go(func() { fallBehind(runCtx, e.clock, cluster.Server(demoPrimaryC), d.duration, stats) })
	start := e.clock.Now()
	slots := watchSlots(runCtx, c, &wg)
	wg.Go(func() { killPubSub(runCtx, e.clock, cluster.PubSub(demoKilled), d.duration, slots) })
	for id := range d.callers {
		wg.Go(func() { w.caller(ctx, id, stop) })
	}
	pr := newProgressPrinter(e.stdout, e.clock, c, stats, start)
	pr.loop(ctx, d.duration)
	close(stop)
	cancel()
	wg.Wait()
	pr.finish()

	res := newDemoResult(stats, cluster, c.Snapshot(), e.clock.Since(start))
	res.stall = newStallReport(stats, w.stalls, start, res.elapsed)
	res.subscription = slots
	res.write(e.stdout)
	if ms != nil && e.onMetrics != nil {
		e.onMetrics(ms.url)
	}
	return d.exitCode(ctx, res)
}

// exitCode is the demo's exit code once res is written: 1, said on
// stderr, when the run was interrupted or a transaction was delivered
// twice.
func (d demo) exitCode(ctx context.Context, res *demoResult) int {
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(d.env.stderr, "solroute demo: interrupted")
		return exitFailed
	case res.duplicates > 0:
		fmt.Fprintf(d.env.stderr, "solroute demo: %d transaction(s) delivered more than once\n", res.duplicates)
		return exitFailed
	}
	return exitOK
}

// writeHeader describes the cluster and its scripted misbehaviour, and
// where the metrics are served (ms nil: nowhere).
func (d demo) writeHeader(ms *metricsServer) {
	from := time.Duration(float64(d.duration) * demoRateLimitFrom)
	until := time.Duration(float64(d.duration) * demoRateLimitUntil)
	w := d.env.stdout
	lagAt := time.Duration(float64(d.duration) * demoLagFrom)
	stalls := demoStalls(d.seed, d.duration)
	fmt.Fprintf(w, "solroute demo: 7 fake endpoints on loopback, %d callers, %s, seed %d\n", d.callers, d.duration, d.seed)
	fmt.Fprintf(w, "  %-12s tier 0  answers HTTP 429 (Retry-After: %ss) from %s to %s; lies: getSlot 3 slots, block heights 40 blocks ahead\n",
		demoPrimaryA, demoRetryAfter, short(from), short(until))
	fmt.Fprintf(w, "  %-12s tier 0  latency spikes; resets or never answers some sendTransaction after reading it; garbles %.0f%% of its answers\n",
		demoPrimaryB, 100*demoGarbleRate)
	fmt.Fprintf(w, "  %-12s tier 0  reads only; falls %d slots behind the others at %s\n", demoPrimaryC, demoLagSlots, short(lagAt))
	fmt.Fprintf(w, "  %-12s tier 0  reads only; answers %.0f%% of them at once with the node's error -32603\n", demoPrimaryD, 100*demoNodeErrorRate)
	fmt.Fprintf(w, "  %-12s tier 1  behaves\n", demoBackup)
	fmt.Fprintf(w, "  %-12s tier 1  reads only; never answers\n", demoDead)
	fmt.Fprintf(w, "  %-12s tier 2  reads only; resets some connections\n", demoLastResort)
	fmt.Fprintf(w, "  every endpoint drifts 0 to 5 slots behind the tip; the chain stalls from %s for %s (no slot moves)\n",
		short(stalls.First), short(stalls.For))
	fmt.Fprintf(w, "  %s also serve PubSub: one slot subscription on all three; %s's is killed at %s\n",
		strings.Join(demoPubSub, ", "), demoKilled, short(time.Duration(float64(d.duration)*demoKillFrom)))
	if ms != nil {
		fmt.Fprintf(w, "metrics: serving %s while the demo runs\n", ms.url)
	}
	fmt.Fprintln(w)
}

// hostPort reports whether addr is host:port (the host may be empty: every
// interface).
func hostPort(addr string) bool {
	_, port, err := net.SplitHostPort(addr)
	return err == nil && port != ""
}

// startCluster is fixtures.NewCluster, returning its panic as an error.
func startCluster(members []fixtures.Member) (c *fixtures.Cluster, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return fixtures.NewCluster(members), nil
}
