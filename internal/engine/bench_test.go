package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/balancefloor"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/transport"
)

// benchCallers is the number of concurrent callers of the parallel cases.
const benchCallers = 64

// benchTarget is one way of making a getBalance round trip.
type benchTarget struct {
	name string
	call func(ctx context.Context) (uint64, error)
}

func benchTargets(b *testing.B, url string) []benchTarget {
	b.Helper()
	p, err := admission.New([]endpoint.Spec{{Name: "bench", URL: endpoint.NewSecret(url),
		Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {}}}}, pool.DefaultSettings(), admission.Options{})
	if err != nil {
		b.Fatal(err)
	}
	sr, err := engine.New(p, transport.DefaultSettings(), engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = sr.Close() })
	// The same with slot tracking off (plan 009): the baseline of what
	// tracking costs.
	offSettings := pool.DefaultSettings()
	offSettings.MaxSlotLag = 0
	ts := transport.DefaultSettings()
	ts.MonotonicReads = false
	untracked := oneEndpoint(b, url, endpoint.Limits{}, offSettings, ts)
	// Slot tracking on but no monotonic reads: no minContextSlot in the
	// requests, which the server then has no more bytes to parse (the
	// wire cost of the guarantee: plans/015-call-cost.md, "Fourth pass").
	noMono := transport.DefaultSettings()
	noMono.MonotonicReads = false
	unfloored := oneEndpoint(b, url, endpoint.Limits{}, pool.DefaultSettings(), noMono)
	// solroute-fixed: a fixed AttemptTimeout, so reads are not timed (no
	// latency histogram, no adaptive rule): the adaptive rule's cost is
	// solroute's time over this one's, in the same run.
	fixed := transport.DefaultSettings()
	fixed.AttemptTimeout = 5 * time.Second
	sf, err := engine.New(p, fixed, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = sf.Close() })

	rawTr := &http.Transport{MaxIdleConnsPerHost: 256}
	b.Cleanup(rawTr.CloseIdleConnections)
	raw := &http.Client{Transport: rawTr}

	sg := rpc.New(url)
	b.Cleanup(func() { _ = sg.Close() })

	return []benchTarget{
		engineTarget("solroute", sr),
		engineTarget("solroute-untracked", untracked),
		engineTarget("solroute-unfloored", unfloored),
		engineTarget("solroute-fixed", sf),
		{"raw", balancefloor.Raw(raw, url, somePubkey)},
		{"retryablehttp", retryableBalance(raw, url)},
		{"solana-go", func(ctx context.Context) (uint64, error) {
			out, err := sg.GetBalance(ctx, somePubkey, "")
			if err != nil {
				return 0, err
			}
			return out.Value, nil
		}},
	}
}

// retryableBalance is the floor (balancefloor.Raw) through go-retryablehttp over the same
// client, with its default retry policy and no logger: the comparator
// plans/003 measured (a client that retries, but knows nothing of
// JSON-RPC, endpoints or sends).
func retryableBalance(client *http.Client, url string) func(ctx context.Context) (uint64, error) {
	body := balancefloor.Request(somePubkey)
	rc := retryablehttp.NewClient()
	rc.HTTPClient, rc.Logger = client, nil
	return func(ctx context.Context) (uint64, error) {
		req, _ := retryablehttp.NewRequestWithContext(ctx, http.MethodPost, url, body)
		req.Header.Set("Content-Type", "application/json")
		resp, err := rc.Do(req)
		if err != nil {
			return 0, err
		}
		return balancefloor.Decode(resp)
	}
}

// engineTarget is a getBalance through e.
func engineTarget(name string, e *engine.Engine) benchTarget {
	return benchTarget{name, func(ctx context.Context) (uint64, error) {
		out, err := getBalance(ctx, e)
		if err != nil {
			return 0, err
		}
		return out.Value, nil
	}}
}

// run runs tg's two cases: sequential round trips, then benchCallers
// concurrent ones (runCallers).
func (tg benchTarget) run(b *testing.B, ctx context.Context) {
	b.Run(tg.name+"/sequential", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if v, err := tg.call(ctx); err != nil || v != 2039280 {
				b.Fatal(v, err)
			}
		}
	})
	b.Run(tg.name+"/64-callers", func(b *testing.B) { tg.runCallers(b, ctx) })
}

// runCallers makes round trips from benchCallers concurrent goroutines.
func (tg benchTarget) runCallers(b *testing.B, ctx context.Context) {
	tg.runConcurrent(b, ctx, benchCallers)
}

// runConcurrent makes round trips from about n concurrent goroutines (a
// multiple of GOMAXPROCS).
func (tg benchTarget) runConcurrent(b *testing.B, ctx context.Context, n int) {
	b.ReportAllocs()
	b.SetParallelism((n + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if v, err := tg.call(ctx); err != nil || v != 2039280 {
				b.Error(v, err)
				return
			}
		}
	})
}

// runConcurrentTimed is runConcurrent, reporting also the calls' latency
// percentiles (p50, p99, max, in µs): what a waiter for a slot pays, and
// whether a few pay it all.
func (tg benchTarget) runConcurrentTimed(b *testing.B, ctx context.Context, n int) {
	b.ReportAllocs()
	b.SetParallelism((n + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	var mu sync.Mutex
	var all []time.Duration
	b.RunParallel(func(pb *testing.PB) {
		took := make([]time.Duration, 0, 2*b.N/n+16)
		for pb.Next() {
			start := time.Now()
			if v, err := tg.call(ctx); err != nil || v != 2039280 {
				b.Error(v, err)
				return
			}
			took = append(took, time.Since(start))
		}
		mu.Lock()
		all = append(all, took...)
		mu.Unlock()
	})
	if len(all) == 0 {
		return
	}
	slices.Sort(all)
	at := func(q float64) float64 { return float64(all[int(q*float64(len(all)-1))].Microseconds()) }
	b.ReportMetric(at(0.5), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
	b.ReportMetric(at(1), "max-µs")
}

// BenchmarkGetBalance compares a getBalance round trip through solroute,
// a raw net/http loop, go-retryablehttp and solana-go's default client
// (ratios, plans/015-call-cost.md, only hold within one run), on one loopback
// handler, sequentially and with 64 concurrent callers.
func BenchmarkGetBalance(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(balancefloor.Handler))
	defer srv.Close()
	ctx := context.Background()
	for _, tg := range benchTargets(b, srv.URL) {
		tg.run(b, ctx)
	}
}

// nodeLatency is the service time of BenchmarkGetBalanceWithLatency's
// handler: a real node takes milliseconds, which is where a cap on
// connections per host (solana-go's default client: 9) limits throughput.
const nodeLatency = 2 * time.Millisecond

// BenchmarkGetBalanceWithLatency is BenchmarkGetBalance against a handler
// that takes nodeLatency per request (a simulated node, not a test wait),
// with 64 concurrent callers.
func BenchmarkGetBalanceWithLatency(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := time.NewTimer(nodeLatency)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		}
		balancefloor.Handler(w, r)
	}))
	defer srv.Close()
	ctx := context.Background()
	for _, tg := range benchTargets(b, srv.URL) {
		b.Run(tg.name+"/64-callers", func(b *testing.B) { tg.runCallers(b, ctx) })
	}
}

// BenchmarkAttemptExecutor measures one POST with net/http directly (what
// the transport does) against go-retryablehttp configured as a pure
// single-attempt executor (RetryMax 0, no logger, passthrough errors,
// never-retry CheckRetry): the evidence for plans/003's decision.
func BenchmarkAttemptExecutor(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(balancefloor.Handler))
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"getBalance","params":["9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"]}`)
	drain := func(resp *http.Response, err error) {
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	b.Run("net-http", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
			drain(hc.Do(req))
		}
	})
	b.Run("retryablehttp", func(b *testing.B) {
		rc := &retryablehttp.Client{
			HTTPClient:   hc,
			RetryMax:     0,
			Logger:       nil,
			CheckRetry:   func(context.Context, *http.Response, error) (bool, error) { return false, nil },
			Backoff:      retryablehttp.DefaultBackoff,
			ErrorHandler: retryablehttp.PassthroughErrorHandler,
		}
		b.ReportAllocs()
		for b.Loop() {
			req, _ := retryablehttp.NewRequest(http.MethodPost, srv.URL, body)
			drain(rc.Do(req))
		}
	})
}

// benchHedgeAfter is the fixed hedge delay of the hedged row: far above a
// loopback answer, so that no hedge starts and the row measures what
// being ready to hedge costs a call.
const benchHedgeAfter = 100 * time.Millisecond

// oneEndpoint returns an engine over one read endpoint at url ("bench")
// with the read limits read, pool settings ps and settings ts, on a pool
// of its own.
func oneEndpoint(b testing.TB, url string, read endpoint.Limits, ps pool.Settings, ts transport.Settings) *engine.Engine {
	b.Helper()
	p, err := admission.New([]endpoint.Spec{{Name: "bench", URL: endpoint.NewSecret(url),
		Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: read}}}, ps, admission.Options{})
	if err != nil {
		b.Fatal(err)
	}
	e, err := engine.New(p, ts, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close() })
	return e
}

// twoEndpoints returns an engine over two endpoints of one server (a
// hedge needs another endpoint) with settings s, on a pool of its own.
func twoEndpoints(b testing.TB, url string, s transport.Settings) *engine.Engine {
	b.Helper()
	read := map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {}}
	p, err := admission.New([]endpoint.Spec{
		{Name: "a", URL: endpoint.NewSecret(url), Roles: read},
		{Name: "b", URL: endpoint.NewSecret(url), Roles: read},
	}, pool.DefaultSettings(), admission.Options{})
	if err != nil {
		b.Fatal(err)
	}
	e, err := engine.New(p, s, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close() })
	return e
}

// BenchmarkGetBalanceHedged compares plain reads with hedged ones (a
// fixed HedgeAfter, and HedgeAuto), each on two endpoints of one
// loopback handler, sequentially and with 64 callers: issue 22 holds the
// hedged and auto rows to 1.05× plain's time (plans/015-call-cost.md).
func BenchmarkGetBalanceHedged(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(balancefloor.Handler))
	defer srv.Close()
	ctx := context.Background()
	hedged, auto := transport.DefaultSettings(), transport.DefaultSettings()
	hedged.HedgeAfter, auto.HedgeAfter = benchHedgeAfter, transport.HedgeAuto
	for _, row := range []struct {
		name string
		s    transport.Settings
	}{{"plain", transport.DefaultSettings()}, {"hedged", hedged}, {"auto", auto}} {
		engineTarget(row.name, twoEndpoints(b, srv.URL, row.s)).run(b, ctx)
	}
}

// BenchmarkGetBalanceCapped is the 64-caller getBalance of
// BenchmarkGetBalance, and 8 and 256 callers, against one endpoint without
// a concurrency cap and with MaxConcurrentRequests 8, a provider's kind of
// cap: with it, callers past the eighth wait in the pool, and each slot
// freed wakes every waiter of the role to scan again (admission's
// wakeList), so the capped rows measure that convoy (plans/015, "The
// convoy at a concurrency cap").
func BenchmarkGetBalanceCapped(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(balancefloor.Handler))
	defer srv.Close()
	ctx := context.Background()
	for _, row := range []struct {
		name string
		cap  int
	}{{"uncapped", 0}, {"cap-8", 8}} {
		e := oneEndpoint(b, srv.URL, endpoint.Limits{MaxConcurrentRequests: row.cap}, pool.DefaultSettings(), transport.DefaultSettings())
		tg := engineTarget(row.name, e)
		for _, callers := range []int{8, benchCallers, 4 * benchCallers} {
			b.Run(fmt.Sprintf("%s/%d-callers", row.name, callers), func(b *testing.B) { tg.runConcurrentTimed(b, ctx, callers) })
		}
	}
}
