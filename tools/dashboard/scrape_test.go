package dashboard_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/jonboulle/clockwork"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/metrics"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// exported is what a collector exported in one scrape: each series name
// a query may read (a histogram's _bucket, _sum and _count) with the
// label names and values its series carry.
type exported struct {
	// families are the metric families' names, as the collector names
	// them (a histogram without its suffixes).
	families []string
	// labels maps each readable series name to its labels and, for
	// each, the values seen.
	labels map[string]map[string][]string
	// described is how many series the collector describes.
	described int
}

// has reports whether a query may read the series name.
func (e *exported) has(name string) bool { _, ok := e.labels[name]; return ok }

// family returns the family a readable series name belongs to.
func (e *exported) family(name string) string {
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok && slices.Contains(e.families, base) {
			return base
		}
	}
	return name
}

// level is the capability of every endpoint of demoLikeScrape's pool but
// the lagging one: a call that requires it cannot land there.
const level = "level"

// tokenOwner is the owner of the token account in the fake cluster's
// recorded data (the library's internal/fixturedata.RecordedTokenOwner,
// which this module cannot import).
const tokenOwner = "GE2qjioELXUH79KnRvXtJqqt9VSTMa4DkLb4eaHBRFkv"

// epoch is the fake clocks' start.
var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// demoLikeScrape runs a pool like the demo's (package cmd/solroute) over
// fake endpoints on loopback, through a few calls that make every series
// the collector has: a tier-0 endpoint that answers 429 with Retry-After
// (the call fails over to tier 1), one whose sends reset after being read
// (ambiguous, then a send routed to it in doubt), one 100 slots behind,
// rate-limited roles (their token buckets show); then, moving the fake
// clocks, subscriptions on the tier-0 members' PubSubs with a failover, a
// fan-out with a copy refused and one that lands, and a coalesced
// getSlot (see run). It then scrapes the
// collector over HTTP and parses the text format with expfmt, as
// Prometheus would.
func demoLikeScrape(t *testing.T) *exported {
	t.Helper()
	// The client and the members share one clock and ledger (the tier-0
	// ones have a PubSub each); the archive has its own clock, which only
	// coalesce moves.
	clock, held := clockwork.NewFakeClockAt(epoch), clockwork.NewFakeClockAt(epoch)
	limits := endpoint.Limits{RequestTimeout: time.Second, RequestsPerSecond: 100, BurstCapacity: 10}
	members := []fixtures.Member{
		{Name: "primary-a", Tier: 0, Read: &limits, Send: &limits},
		{Name: "primary-b", Tier: 0, Send: &limits},
		{Name: "primary-c", Tier: 0, Read: &limits},
		{Name: "backup", Tier: 1, Read: &limits, Send: &limits},
		{Name: "archive", Tier: 2, Read: &limits}, // reads held on its own clock (coalesce)
	}
	var streams []string
	ledger := fixtures.NewLedger() // every member's but the archive's: the fan-out's send lands in it
	for i := range members {
		members[i].Options.Clock = clock
		members[i].Options.Slots = &fixtures.SlotOptions{}
		members[i].Options.Ledger = ledger
		if members[i].Tier == 0 {
			members[i].PubSub = &fixtures.PubSubOptions{}
			streams = append(streams, members[i].Name)
		}
	}
	members[4].Options.Clock, members[4].Options.Ledger = held, nil
	members[2].Options.Slots.Lag = 100
	cluster := fixtures.NewCluster(members)
	t.Cleanup(cluster.Close)

	ts := transport.DefaultSettings()
	ts.Retry.Jitter = func(time.Duration) time.Duration { return 0 }
	o := solroute.Options{Transport: &ts, Hooks: solroute.Hooks{Clock: clock}}
	o.Endpoints = cluster.Endpoints()
	for i := range o.Endpoints {
		if o.Endpoints[i].Name != "primary-c" {
			o.Endpoints[i].Capabilities = []string{level} // every endpoint but the lagging one
		}
	}
	client, err := solroute.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	col := metrics.New(client, metrics.Options{})
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(col)

	ctx := context.Background()
	only := func(name string) context.Context { return solroute.WithEndpoint(ctx, name) }
	owner := solana.MustPublicKeyFromBase58(tokenOwner)
	getBalance := func(ctx context.Context) error {
		_, err := client.GetBalance(ctx, owner, solroute.BalanceOptions{})
		return err
	}
	sendTx := func(ctx context.Context, seed uint64) error {
		tx, err := fixtures.SignedTransaction(seed, "")
		if err != nil {
			t.Fatal(err)
		}
		b64, err := fixtures.EncodeTransaction(tx)
		if err != nil {
			t.Fatal(err)
		}
		// skipPreflight: the ledger's preflight would refuse the
		// recorded blockhash, which is not on its chain.
		var sig solana.Signature
		return client.CallForInto(ctx, &sig, "sendTransaction", []any{b64, map[string]any{"encoding": "base64", "skipPreflight": true}})
	}
	// Every reader answers once, so that every slot is known: the
	// lagging one first, so that monotonic reads do not hold it back.
	for _, name := range []string{"primary-c", "primary-a", "backup"} {
		if err := getBalance(only(name)); err != nil {
			t.Fatalf("getBalance on %s: %v", name, err)
		}
	}
	// primary-b resets a send after reading it: ambiguous, and in doubt.
	cluster.Server("primary-b").SetFault(fixtures.Fault{Kind: fixtures.ResetAfterRead})
	if err := sendTx(only("primary-b"), 1); !errors.Is(err, solroute.ErrAmbiguousDispatch) {
		t.Fatalf("send to primary-b: %v, want ErrAmbiguousDispatch", err)
	}
	// The next send has primary-b alone: it goes there in doubt.
	cluster.Server("primary-b").SetFault(fixtures.Fault{})
	if err := sendTx(only("primary-b"), 2); err != nil {
		t.Fatalf("send to primary-b in doubt: %v", err)
	}
	// primary-a answers 429: the read, kept off the lagging primary-c,
	// fails over to the backup.
	cluster.Server("primary-a").SetFault(fixtures.Status(429, "1"))
	if err := getBalance(solroute.WithCapabilities(ctx, level)); err != nil {
		t.Fatalf("getBalance past a 429: %v", err)
	}
	// The series that need the clocks to move: the streams, the fan-out
	// and a coalesced read.
	r := &run{t: t, clock: clock, held: held, cluster: cluster, client: client, reg: reg, streams: streams, holder: "archive"}
	r.subscribe(owner)
	r.fanOut()
	r.coalesce([]string{"primary-a", "primary-c", "backup", "archive"})

	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
	tr := &http.Transport{}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		srv.Close()
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain")
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s\n%s", resp.Status, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("parse /metrics: %v\n%s", err, body)
	}

	e := &exported{labels: map[string]map[string][]string{}}
	descs := make(chan *prometheus.Desc, 64)
	col.Describe(descs)
	close(descs)
	for range descs {
		e.described++
	}
	for name, f := range fams {
		e.families = append(e.families, name)
		names := []string{name}
		extra := map[string][]string{}
		if f.GetType() == dto.MetricType_HISTOGRAM {
			names = []string{name + "_bucket", name + "_sum", name + "_count"}
			extra["le"] = []string{"+Inf"}
		}
		for _, n := range names {
			labels := map[string][]string{}
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if !slices.Contains(labels[l.GetName()], l.GetValue()) {
						labels[l.GetName()] = append(labels[l.GetName()], l.GetValue())
					}
				}
			}
			if strings.HasSuffix(n, "_bucket") {
				labels["le"] = extra["le"]
			}
			e.labels[n] = labels
		}
	}
	slices.Sort(e.families)
	return e
}

// knownValues are the values a label of the collector can take beyond
// those one scrape shows: every outcome, retry rule and health state.
func knownValues() map[string][]string {
	k := map[string][]string{"outcome": {"ok", "no-endpoint"}}
	for c := retrypolicy.Cause(1); !strings.HasPrefix(c.String(), "cause("); c++ {
		k["outcome"] = append(k["outcome"], c.String())
	}
	for r := retrypolicy.Rule(1); !strings.HasPrefix(r.String(), "rule("); r++ {
		k["decision"] = append(k["decision"], r.String())
	}
	for h := endpoint.Available; h <= endpoint.Ejected; h++ {
		k["state"] = append(k["state"], h.String())
	}
	for _, r := range endpoint.AllRoles() {
		k["role"] = append(k["role"], r.String())
	}
	return k
}
