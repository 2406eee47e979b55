package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/config"
)

const watchAbout = `
Subscribe through the endpoints that serve the subscribe role (an
[endpoints.subscribe] table) and print each notification on one line: its
kind, its context slot, what it says, and the endpoint that delivered it
first. Each subscription is held on several endpoints at once ([subscribe]
redundancy, 2 by default): their copies are suppressed, a closed, stalled
or lagging endpoint is replaced, and an account is read back over HTTP
after a switch, so the stream goes on. The closing summary counts what was
delivered, the duplicates suppressed, the stale and dropped notifications
and the failovers.

KIND is slot, root, account PUBKEY, program ID, signature SIG (ends at its
one notification) or logs PUBKEY (the transactions that mention it; logs
all for every one). It runs until Ctrl-C, --count N notifications or
--duration D. Bad input (an unknown KIND, a bad key or signature) is a
usage error before any connection.

Exit codes: 0 stopped by Ctrl-C, --count or --duration, or the signature's
notification came; 1 the subscription could not be made on any endpoint;
2 a usage or configuration error (no endpoint serves subscribe).`

const watchExample = `
solroute watch --config rpc.toml slot --count 20
solroute watch --config rpc.toml account 9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM --duration 1m
solroute watch --config rpc.toml --commitment finalized signature SIG`

// runWatch is "solroute watch".
func runWatch(ctx context.Context, e *env, args []string) int {
	f := newFlags("watch", "watch --config FILE [--count N] [--duration D] [--commitment C] [--encoding E] KIND [ARG]", watchAbout, watchExample)
	cfgPath := f.String("config", "", "read the TOML configuration from `FILE` (required)")
	count := f.Uint64("count", 0, "stop after `N` notifications; 0 (default) never")
	duration := f.Duration("duration", 0, "stop after `D` (such as 30s); 0 (default) never")
	commitment := f.String("commitment", "", "the commitment `C` of account, program, signature and logs: processed, confirmed (default) or finalized")
	encoding := f.String("encoding", "", "account and program data encoding `E`: base64 (default), base58, base64+zstd or jsonParsed")
	pos, code, done := f.parse(e, args)
	if done {
		return code
	}
	if *duration < 0 {
		return e.usageError("watch", "--duration must not be negative")
	}
	target, err := parseWatchTarget(pos, *commitment, *encoding)
	if err != nil {
		return e.usageError("watch", "%v", err)
	}
	cfg, code := e.loadConfig("watch", *cfgPath)
	if cfg == nil {
		return code
	}
	n := subscribeEndpoints(cfg)
	if n == 0 {
		fmt.Fprintf(e.stderr, "solroute watch: configuration error: watch needs an endpoint that serves subscribe, and none in %s does "+
			"(give one an [endpoints.subscribe] table)\n", *cfgPath)
		return exitUsage
	}
	c, err := fromDocument(cfg, solroute.Hooks{Clock: e.clock})
	if err != nil {
		fmt.Fprintf(e.stderr, "solroute watch: %v\n", err)
		return exitUsage
	}
	defer c.Close()
	w := &watcher{env: e, target: target, count: *count, duration: *duration, endpoints: n, redundancy: redundancyOf(cfg, n)}
	if target.kind == "slot" {
		w.redundancy = n // every connection's heartbeat feeds it
	}
	return w.run(ctx, c.Client)
}

// subscribeEndpoints counts the endpoints of cfg that serve subscribe.
func subscribeEndpoints(cfg *config.Document) int {
	n := 0
	for i := range cfg.Endpoints {
		if cfg.Endpoints[i].Subscribe != nil {
			n++
		}
	}
	return n
}

// redundancyOf is the redundancy the client holds each subscription with:
// [subscribe] redundancy, or its default (2, at most n).
func redundancyOf(cfg *config.Document, n int) int {
	if r := cfg.Subscribe.Redundancy; r > 0 {
		return r
	}
	return min(2, n)
}

// watcher is one run of watch.
type watcher struct {
	env                   *env
	target                *watchTarget
	count                 uint64
	duration              time.Duration
	endpoints, redundancy int

	delivered, readBack, gaps uint64
	first                     map[string]uint64 // endpoint: notifications it delivered first
	order                     []string          // endpoints in the order they first delivered
}

// run subscribes, prints until a stop, then the summary.
func (w *watcher) run(ctx context.Context, c *solroute.Client) int {
	e := w.env
	runCtx := ctx
	if w.duration > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = clockwork.WithTimeout(ctx, e.clock, w.duration)
		defer cancel()
	}
	start := e.clock.Now()
	st, err := w.target.open(runCtx, c)
	if err != nil {
		return w.subscribeFailed(runCtx, err)
	}
	defer st.close()
	fmt.Fprintf(e.stdout, "watch: %s on %d subscribe endpoint(s), each notification from %d at once; Ctrl-C to stop\n",
		w.target.kind, w.endpoints, w.redundancy)
	w.first = map[string]uint64{}
	stopped, code := w.loop(runCtx, st)
	w.summary(st.stats(), e.clock.Since(start), stopped)
	return code
}

// loop prints notifications until a stop, and says which.
func (w *watcher) loop(ctx context.Context, st watchStream) (string, int) {
	for w.count == 0 || w.delivered < w.count {
		l, err := st.next(ctx)
		switch {
		case errors.Is(err, solroute.ErrSubscriptionDone):
			return "the signature's one notification came", exitOK
		case err != nil && ctx.Err() != nil:
			if errors.Is(context.Cause(ctx), context.DeadlineExceeded) && w.duration > 0 {
				return fmt.Sprintf("--duration %s passed", w.duration), exitOK
			}
			return "interrupted", exitOK
		case err != nil:
			fmt.Fprintf(w.env.stderr, "solroute watch: %v\n", err)
			return "the subscription ended", exitFailed
		}
		w.print(l)
	}
	return fmt.Sprintf("--count %d reached", w.count), exitOK
}

// subscribeFailed reports a subscribe that no endpoint took: a usage
// error for input refused before any connection (an *InputError) or a
// document without a subscribe endpoint, else a failure (every endpoint
// refused it, its params included); nothing when stopped first.
func (w *watcher) subscribeFailed(ctx context.Context, err error) int {
	var bad *solroute.InputError
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(w.env.stderr, "solroute watch: stopped before the subscription was live: %v\n", err)
		return exitOK
	case errors.As(err, &bad), errors.Is(err, solroute.ErrNoEndpoint):
		fmt.Fprintf(w.env.stderr, "solroute watch: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(w.env.stderr, "solroute watch: %v\n", err)
	return exitFailed
}
