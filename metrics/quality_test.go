package metrics_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/metrics"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// exercise makes calls under ctx that give every event series a child:
// failovers after a 503 and a 429, a send that may have landed (made on
// the resetting endpoint alone), a failed read and a call of an unknown
// method. The endpoints are named by their part.
func exercise(t *testing.T, ctx context.Context, e *env, failing, limited, resetting, good string) {
	t.Helper()
	e.server(failing).SetFault(fixtures.Status(503, ""))
	e.server(limited).SetFault(fixtures.Status(429, "1"))
	e.server(resetting).SetFault(fixtures.Fault{Kind: fixtures.ResetAfterRead})
	for range 3 {
		_ = e.getBalance(ctx)
	}
	var sig solana.Signature
	err := e.client.CallForInto(engine.WithAvoid(ctx, failing, limited, good), &sig, "sendTransaction", signedTx(t, 7))
	if !errors.Is(err, engine.ErrAmbiguousDispatch) {
		t.Errorf("a send to %s: %v, want ErrAmbiguousDispatch", resetting, err)
	}
	var raw json.RawMessage
	_ = e.client.CallForInto(ctx, &raw, "getBalance", []any{"not a key"})
	_ = e.client.CallForInto(ctx, &raw, "getNothingAtAll", nil)
}

// TestMetricsPassLint: every series the collector makes, once each has a
// child, passes client_golang's linter (names, units, _total, help), as a
// collector alone and through the registry.
func TestMetricsPassLint(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("failing", 0), member("limited", 0), member("resetting", 0), member("good", 1)})
	exercise(t, context.Background(), e, "failing", "limited", "resetting", "good")
	problems, err := testutil.CollectAndLint(e.col)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
	if problems, err = testutil.GatherAndLint(e.reg); err != nil || len(problems) != 0 {
		t.Errorf("GatherAndLint: %v, %v", problems, err)
	}
	n, err := testutil.GatherAndCount(e.reg)
	if err != nil {
		t.Fatal(err)
	}
	body, s := e.scrape()
	for _, name := range []string{"solroute_calls_total", "solroute_attempts_total", "solroute_retry_decisions_total",
		"solroute_ambiguous_calls_total", "solroute_provider_delay_seconds_count"} {
		if len(s.matching(name)) == 0 {
			t.Errorf("no %s series: the linter did not see it\n%s", name, body)
		}
	}
	t.Logf("%d series linted, 0 problems", n)
}

// sampleLines counts the samples of a text scrape: its lines that are not
// comments.
func sampleLines(body string) int {
	n := 0
	for _, l := range strings.Split(body, "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			n++
		}
	}
	return n
}

// TestUnknownMethodsMakeBoundedSeries: 10 000 distinct method names the
// registry does not know add no series past those the first ten made:
// every one is labelled "other".
func TestUnknownMethodsMakeBoundedSeries(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0, "read"), member("b", 0, "read")})
	call := func(from, to int) {
		t.Helper()
		const workers = 8
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := range workers {
			wg.Go(func() {
				for i := from + w; i < to; i += workers {
					var raw json.RawMessage
					err := e.client.CallForInto(context.Background(), &raw, fmt.Sprintf("unknownMethod%05d", i), nil)
					if err == nil {
						errs <- fmt.Errorf("unknownMethod%05d succeeded", i)
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
	call(0, 10)
	body, _ := e.scrape()
	first := sampleLines(body)
	call(10, 10_000)
	body, s := e.scrape()
	all := sampleLines(body)
	if all != first {
		t.Errorf("10 unknown methods make %d series, 10 000 make %d: unbounded", first, all)
	}
	for k := range s {
		if strings.Contains(k, "unknownMethod") {
			t.Fatalf("a method name reached a label: %s", k)
		}
	}
	s.want(t, body, map[string]float64{
		series("solroute_calls_total", "method=other", "role=read", "outcome=rpc-application"): 10_000,
		series("solroute_call_duration_seconds_count", "method=other", "role=read"):            10_000,
	})
	t.Logf("10 000 distinct unknown methods: %d series in the scrape (%d before the last 9 990)", all, first)
}

// TestMaxMethodsBoundsKnownMethods: past Options.MaxMethods, known methods
// are labelled "other" too; a negative bound labels every method "other".
func TestMaxMethodsBoundsKnownMethods(t *testing.T) {
	for _, tt := range []struct {
		max  int
		want []string // method labels of calls_total
	}{
		{2, []string{"getBalance", "getSlot", "other"}},
		{-1, []string{"other"}},
	} {
		t.Run(fmt.Sprint(tt.max), func(t *testing.T) {
			e := newEnvWith(t, []fixtures.Member{member("a", 0, "read")}, metrics.Options{MaxMethods: tt.max})
			c, ctx := e.client, context.Background()
			for range 2 {
				_ = e.getBalance(ctx)
				_, _ = c.RPC().GetSlot(ctx, rpc.CommitmentFinalized)
				_, _ = c.RPC().GetBlockHeight(ctx, rpc.CommitmentFinalized)
			}
			body, s := e.scrape()
			var got []string
			for _, k := range s.matching("solroute_calls_total") {
				_, rest, _ := strings.Cut(k, `method="`)
				m, _, _ := strings.Cut(rest, `"`)
				got = append(got, m)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("method labels %q, want %q\n%s", got, tt.want, body)
			}
		})
	}
}

// marker is the secret planted in the endpoints' URLs and headers; no
// scrape may show it in any form fixturedata.FindSecret can undo.
const marker = "SeCrEtMaRkEr"

// placements are fixtures' secret placements, less the unresolvable host
// (these tests need endpoints that answer).
func placements() []fixturedata.SecretPlacement {
	var out []fixturedata.SecretPlacement
	for _, pl := range fixturedata.SecretPlacements(marker) {
		if !pl.DNSOnly {
			out = append(out, pl)
		}
	}
	return out
}

// TestNoSecretInMetrics: with the marker in every part of the URLs and
// headers of endpoints that fail every way (a 503, a 429, a reset after
// the request was read, a refused connection, a server that echoes the
// request back in its errors) and of one that answers, reads, sends and
// unknown methods succeed and fail, and no scrape shows the marker.
func TestNoSecretInMetrics(t *testing.T) {
	echo := httptest.NewServer(fixturedata.EchoHandler())
	t.Cleanup(echo.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := ln.Addr().String() // nothing listens there once closed
	_ = ln.Close()
	for _, pl := range placements() {
		t.Run(pl.Name, func(t *testing.T) {
			members := []fixtures.Member{member("failing", 0), member("limited", 0), member("resetting", 0), member("good", 1)}
			e := newEnv(t, members, func(o *solroute.Options) {
				for i := range o.Endpoints {
					ep := &o.Endpoints[i]
					ep.URL = pl.URL("http", strings.TrimPrefix(ep.URL, "http://"))
					ep.Headers = pl.Headers
				}
				l := &endpoint.Limits{}
				o.Endpoints = append(o.Endpoints,
					solroute.Endpoint{Name: "echo", URL: pl.URL("http", strings.TrimPrefix(echo.URL, "http://")), Headers: pl.Headers, Read: l, Send: l},
					solroute.Endpoint{Name: "refused", URL: pl.URL("http", refused), Headers: pl.Headers, Read: l, Send: l})
			})
			// The echo endpoint answers every call with a JSON-RPC error,
			// which stops it: it takes the calls of its own.
			exercise(t, engine.WithAvoid(context.Background(), "echo"), e, "failing", "limited", "resetting", "good")
			echoOnly := engine.WithAvoid(context.Background(), "failing", "limited", "resetting", "good", "refused")
			var raw json.RawMessage
			for _, ctx := range []context.Context{context.Background(), echoOnly} {
				_ = e.client.CallForInto(ctx, &raw, "get"+marker, []any{marker})
				_, _ = e.client.RPC().GetSlot(ctx, rpc.CommitmentFinalized)
				_ = e.getBalance(ctx)
			}

			body, s := e.scrape()
			if form, leaked := fixturedata.FindSecret(body, marker); leaked {
				t.Fatalf("the scrape shows the secret (%s):\n%s", form, body)
			}
			if len(s.matching("solroute_calls_total", "outcome=ok")) == 0 || len(s.matching("solroute_calls_total")) < 2 {
				t.Errorf("want calls that succeeded and calls that failed:\n%s", body)
			}
			for _, name := range []string{"echo", "refused", "failing", "limited", "good"} {
				if len(s.matching("solroute_attempts_total", "endpoint="+name)) == 0 {
					t.Errorf("no attempt on %s: its secret was never used", name)
				}
			}
			// The secret was sent: the good endpoint saw it.
			reqs := e.server("good").Requests()
			if len(reqs) == 0 {
				t.Fatal("the good endpoint got no request")
			}
			seen := reqs[0].Target
			for k, v := range reqs[0].Header {
				seen += "\n" + k + ": " + strings.Join(v, ", ")
			}
			if _, used := fixturedata.FindSecret(seen, marker); !used {
				t.Errorf("the good endpoint's request carries no secret:\n%s", seen)
			}
		})
	}
}

// TestOptionsValidate: New takes the zero Options; an invalid field is an
// *endpoint.Problem naming it, and New panics with it before it adds its
// Observer.
func TestOptionsValidate(t *testing.T) {
	for _, tt := range []struct {
		o     metrics.Options
		field string
	}{
		{metrics.Options{}, ""},
		{metrics.Options{Namespace: "my_app", MaxMethods: -1, DurationBuckets: []float64{0.1, 1}}, ""},
		{metrics.Options{Namespace: "my-app"}, "Namespace"},
		{metrics.Options{Namespace: "1app"}, "Namespace"},
		{metrics.Options{Namespace: "app:x"}, "Namespace"},
		{metrics.Options{DurationBuckets: []float64{1, 1}}, "DurationBuckets"},
		{metrics.Options{WaitBuckets: []float64{}}, "WaitBuckets"},
		{metrics.Options{DelayBuckets: []float64{2, 1}}, "DelayBuckets"},
	} {
		err := tt.o.Validate()
		var oe *endpoint.Problem
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("%+v: %v", tt.o, err)
		case tt.field != "" && (!errors.As(err, &oe) || oe.Path != tt.field):
			t.Errorf("%+v: error %v, want an *endpoint.Problem on %s", tt.o, err, tt.field)
		case tt.field != "" && tt.o.Namespace != "" && strings.Contains(err.Error(), tt.o.Namespace):
			t.Errorf("%+v: %q quotes the value", tt.o, err)
		case tt.field != "":
			src := &countingSource{}
			func() {
				defer func() {
					if r := recover(); r != err.Error() && fmt.Sprint(r) != err.Error() {
						t.Errorf("New panicked with %v, want %v", r, err)
					}
				}()
				metrics.New(src, tt.o)
			}()
			if src.observers != 0 {
				t.Errorf("New added an Observer before it panicked")
			}
		}
	}
}

// countingSource is a Source with no endpoint that counts its Observers.
type countingSource struct{ observers int }

func (s *countingSource) Observe(transport.Observer)     { s.observers++ }
func (s *countingSource) Snapshot() []endpoint.Snapshot  { return nil }
func (s *countingSource) RetryBudget() retrypolicy.Usage { return retrypolicy.Usage{} }

// TestScrapesDuringCalls: scrapes while callers make calls of methods
// the collector has not seen yet (each adds children and map entries):
// the race detector watches the Observer and Collect together, and the
// last scrape counts every call.
func TestScrapesDuringCalls(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0, "read"), member("b", 0, "read")})
	methods := []string{"getSlot", "getBlockHeight", "getLatestBlockhash", "getHealth", "getVersion", "getGenesisHash"}
	const perCaller = 20
	done := make(chan struct{})
	var wg sync.WaitGroup
	for _, m := range methods {
		wg.Go(func() {
			for range perCaller {
				var raw json.RawMessage
				if err := e.client.CallForInto(context.Background(), &raw, m, nil); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	go func() { wg.Wait(); close(done) }()
	scrapes := 0
	for running := true; running; scrapes++ {
		select {
		case <-done:
			running = false
		default:
		}
		e.scrape()
	}
	body, s := e.scrape()
	want := map[string]float64{}
	for _, m := range methods {
		want[series("solroute_calls_total", "method="+m, "role=read", "outcome=ok")] = perCaller
	}
	s.want(t, body, want)
	t.Logf("%d scrapes during %d calls", scrapes, perCaller*len(methods))
}
