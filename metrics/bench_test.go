package metrics_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/balancefloor"
	"github.com/solroute/solroute/metrics"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/tracing"
	"github.com/solroute/solroute/transport"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// BenchmarkGetBalance is one getBalance round trip on loopback through
// raw net/http (the floor), a client, and the client with each observer
// stage, in the same run: the observers' cost per call is the difference
// (a call of one attempt feeds eight series and makes two spans). The
// tracer rows: "noop-tracer" is tracing on trace/noop's provider (what
// issue 22's "no-op tracer" names: the row issue 22 holds to 0.93× raw's
// throughput, plans/015-call-cost.md), "never-tracer" an SDK provider
// whose sampler never samples (a program that installed tracing and
// samples nothing of this traffic). -benchmem's allocs/op include the
// server's, the same on all.
func BenchmarkGetBalance(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(balancefloor.Handler))
	b.Cleanup(srv.Close)
	b.Run("raw", func(b *testing.B) { benchRaw(b, srv.URL) })
	for _, row := range observerRows {
		b.Run(row.name, func(b *testing.B) {
			c := row.client(b, srv.URL)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.GetBalance(ctx, somePubkey, solroute.BalanceOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGetBalanceInterleaved makes the rows of BenchmarkGetBalance
// take turns, one call each per iteration (the first row rotating), and
// reports each row's median time per call and its throughput against
// raw's by that median (with the engine rows, enginebench_test.go):
// on a loaded machine, rows run a second apart see different loads, and
// rows that take turns call by call see the same.
func BenchmarkGetBalanceInterleaved(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(balancefloor.Handler))
	b.Cleanup(srv.Close)
	tr := &http.Transport{MaxIdleConnsPerHost: 256}
	b.Cleanup(tr.CloseIdleConnections)
	raw := balancefloor.Raw(&http.Client{Transport: tr}, srv.URL, somePubkey)
	names := []string{"raw", "raw+timeout"}
	calls := []func(context.Context) error{func(ctx context.Context) error {
		_, err := raw(ctx)
		return err
	}, func(ctx context.Context) error { // raw with a bound of its own, as any call in production has
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		_, err := raw(ctx)
		return err
	}}
	for _, row := range observerRows {
		c := row.client(b, srv.URL)
		names = append(names, row.name)
		calls = append(calls, func(ctx context.Context) error {
			_, err := c.GetBalance(ctx, somePubkey, solroute.BalanceOptions{})
			return err
		})
	}
	en, ec := engineRows(b, srv.URL)
	names, calls = append(names, en...), append(calls, ec...)
	spent := make([]callTimes, len(calls))
	ctx, n := context.Background(), 0
	for b.Loop() {
		for j := range calls {
			i := (n + j) % len(calls)
			t0 := time.Now()
			if err := calls[i](ctx); err != nil {
				b.Fatal(err)
			}
			spent[i].add(time.Since(t0))
		}
		n++
	}
	floor := spent[0].median()
	for i, name := range names {
		m := spent[i].median()
		b.ReportMetric(float64(m.Nanoseconds()), name+"-median-ns/call")
		if i > 0 {
			b.ReportMetric(float64(floor)/float64(m), name+"-x-raw")
		}
	}
}

// callTimes counts calls by duration, in steps of callStep up to
// len(counts) steps (the last counts the longer ones): a median robust to
// the few calls a loaded machine preempts for milliseconds, which move a
// mean by more than the difference between rows.
type callTimes struct{ counts [20000]uint32 }

// callStep is callTimes' resolution.
const callStep = 50 * time.Nanosecond

func (t *callTimes) add(d time.Duration) { t.counts[min(int(d/callStep), len(t.counts)-1)]++ }

// median is the median duration, to callStep.
func (t *callTimes) median() time.Duration {
	var total, seen uint64
	for _, c := range t.counts {
		total += uint64(c)
	}
	for i, c := range t.counts {
		if seen += uint64(c); 2*seen >= total {
			return time.Duration(i)*callStep + callStep/2
		}
	}
	return 0
}

// observerRows are the client rows of the benchmarks: the client alone,
// then with each observer stage.
var observerRows = []observerRow{
	{"solroute", false, nil},
	{"solroute+metrics", true, nil},
	{"solroute+noop-tracer", false, noopProvider},
	{"solroute+metrics+noop-tracer", true, noopProvider},
	{"solroute+metrics+never-tracer", true, neverProvider},
}

// observerRow is a client over one endpoint, with a Collector or not,
// traced on a provider or not.
type observerRow struct {
	name    string
	metrics bool
	tracer  func(b *testing.B) trace.TracerProvider
}

// client builds the row's client over url, closed when b ends.
func (row observerRow) client(b *testing.B, url string) *solroute.Client {
	c, err := solroute.New(solroute.Options{Endpoints: []solroute.Endpoint{
		{Name: "bench", URL: url, Read: &endpoint.Limits{}}}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	if row.metrics {
		prometheus.NewRegistry().MustRegister(metrics.New(c, metrics.Options{}))
	}
	if row.tracer != nil {
		tracing.Instrument(c, tracing.Options{TracerProvider: row.tracer(b)})
	}
	return c
}

// noopProvider is trace/noop's TracerProvider.
func noopProvider(*testing.B) trace.TracerProvider { return noop.NewTracerProvider() }

// neverProvider is an SDK TracerProvider that samples nothing.
func neverProvider(b *testing.B) trace.TracerProvider {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp
}

// benchRaw is the floor (balancefloor.Raw): a getBalance round trip with
// net/http alone, as internal/engine's raw row.
func benchRaw(b *testing.B, url string) {
	tr := &http.Transport{MaxIdleConnsPerHost: 256}
	b.Cleanup(tr.CloseIdleConnections)
	raw := balancefloor.Raw(&http.Client{Transport: tr}, url, somePubkey)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if v, err := raw(ctx); err != nil || v != balancefloor.Lamports {
			b.Fatal(v, err)
		}
	}
}

// capture is a Source that keeps the Observer it is given.
type capture struct {
	obs   transport.Observer
	snaps []endpoint.Snapshot
}

func (s *capture) Observe(o transport.Observer)   { s.obs = o }
func (s *capture) Snapshot() []endpoint.Snapshot  { return s.snaps }
func (s *capture) RetryBudget() retrypolicy.Usage { return retrypolicy.Usage{} }

// BenchmarkObserver is what the Collector's Observer does for a call of
// one successful attempt, alone: its four methods, once each series has
// its child. It allocates nothing.
func BenchmarkObserver(b *testing.B) {
	src := &capture{snaps: []endpoint.Snapshot{{Name: "bench", Role: endpoint.RoleRead}}}
	metrics.New(src, metrics.Options{})
	call := transport.CallInfo{Method: "getBalance", Known: true, Role: endpoint.RoleRead, Class: retrypolicy.Idempotent}
	a := transport.Attempt{Endpoint: "bench", Duration: 3 * time.Millisecond, Wait: time.Microsecond}
	res := transport.CallResult{Attempts: 1, Duration: 3 * time.Millisecond}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		cctx := src.obs.CallStarted(ctx, call)
		actx := src.obs.AttemptStarted(cctx, call, transport.Attempt{Endpoint: "bench", Number: 1})
		src.obs.AttemptEnded(actx, call, a)
		src.obs.CallEnded(cctx, call, res)
	}
}

// TestObserverAllocatesNothing: once a call's series exist, the Observer
// allocates nothing for the next, failed attempts and decisions
// included.
func TestObserverAllocatesNothing(t *testing.T) {
	src := &capture{snaps: []endpoint.Snapshot{{Name: "a", Role: endpoint.RoleRead}}}
	metrics.New(src, metrics.Options{})
	call := transport.CallInfo{Method: "getBalance", Known: true, Role: endpoint.RoleRead, Class: retrypolicy.Idempotent}
	unknown := transport.CallInfo{Method: "nobodyKnowsMe", Role: endpoint.RoleRead}
	failed := transport.Attempt{Endpoint: "a", Duration: time.Millisecond, Hedge: true,
		Outcome:  retrypolicy.Outcome{Cause: retrypolicy.RateLimited, ProviderDelay: time.Second},
		Decision: retrypolicy.Decision{Retry: true, Rule: retrypolicy.RuleRetry}}
	ok := transport.Attempt{Endpoint: "a", Duration: time.Millisecond}
	res := transport.CallResult{Attempts: 2, Duration: 2 * time.Millisecond}
	ctx := context.Background()
	one := func() {
		for _, c := range []transport.CallInfo{call, unknown} {
			src.obs.AttemptEnded(ctx, c, failed)
			src.obs.AttemptEnded(ctx, c, ok)
			src.obs.CallEnded(ctx, c, res)
		}
	}
	one() // makes the children
	if n := testing.AllocsPerRun(100, one); n != 0 {
		t.Errorf("%v allocations per call", n)
	}
}
