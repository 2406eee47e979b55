package metrics_test

import (
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

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
	"github.com/solroute/solroute/transport"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// epoch is the fake clocks' start.
var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// env is a cluster of fake endpoints, a client over them whose pool runs
// on a fake clock, its Collector on a fresh registry, and /metrics served
// over loopback; all closed at the end of the test.
type env struct {
	t       *testing.T
	clock   *clockwork.FakeClock
	cluster *fixtures.Cluster
	client  *solroute.Client
	col     *metrics.Collector
	reg     *prometheus.Registry
	url     string // of /metrics
	http    *http.Client
}

// member is a cluster member serving the given roles ("read", "send",
// both when none), each with a one-second request timeout.
func member(name string, tier int, roles ...string) fixtures.Member {
	if len(roles) == 0 {
		roles = []string{"read", "send"}
	}
	m := fixtures.Member{Name: name, Tier: tier}
	for _, r := range roles {
		var role endpoint.Role
		if err := role.UnmarshalText([]byte(r)); err != nil {
			panic(err)
		}
		l := &endpoint.Limits{RequestTimeout: time.Second}
		if role == endpoint.RoleRead {
			m.Read = l
		} else {
			m.Send = l
		}
	}
	return m
}

// setup edits the client's options before it is built.
type setup func(*solroute.Options)

// newEnv starts members, each on a fake clock of the servers' own that
// never moves (server delays never end), and a client over them whose
// pool runs on e.clock, with retries that wait no backoff.
func newEnv(t *testing.T, members []fixtures.Member, edits ...setup) *env {
	t.Helper()
	return newEnvWith(t, members, metrics.Options{}, edits...)
}

// newEnvWith is newEnv with the collector's options mo.
func newEnvWith(t *testing.T, members []fixtures.Member, mo metrics.Options, edits ...setup) *env {
	t.Helper()
	e := &env{t: t, clock: clockwork.NewFakeClockAt(epoch)}
	serverClock := clockwork.NewFakeClockAt(epoch)
	for i := range members {
		if members[i].Options.Clock == nil {
			members[i].Options.Clock = serverClock
		}
	}
	e.cluster = fixtures.NewCluster(members)
	t.Cleanup(e.cluster.Close)
	ts := transport.DefaultSettings()
	ts.Retry.Jitter = func(time.Duration) time.Duration { return 0 }
	o := solroute.Options{Transport: &ts, Hooks: solroute.Hooks{Clock: e.clock}}
	o.Endpoints = e.cluster.Endpoints()
	for _, edit := range edits {
		edit(&o)
	}
	c, err := solroute.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	e.client = c
	e.serve(metrics.New(c, mo))
	return e
}

// serve registers col on a fresh registry and serves it on loopback.
func (e *env) serve(col *metrics.Collector) {
	e.col, e.reg = col, prometheus.NewPedanticRegistry()
	e.reg.MustRegister(col)
	srv := httptest.NewServer(promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
	tr := &http.Transport{}
	e.http = &http.Client{Transport: tr}
	e.t.Cleanup(func() {
		tr.CloseIdleConnections()
		srv.Close()
	})
	e.url = srv.URL + "/metrics"
}

func (e *env) server(name string) *fixtures.Server { return e.cluster.Server(name) }

// scrape GETs /metrics over HTTP in the text format and returns the body
// and its parse.
func (e *env) scrape() (string, scraped) {
	e.t.Helper()
	body := get(e.t, e.http, e.url)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		e.t.Fatalf("parse /metrics: %v\n%s", err, body)
	}
	return body, flatten(fams)
}

// get GETs url and returns the body of its 200 answer.
func get(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain")
	resp, err := c.Do(req)
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
	if f := expfmt.ResponseFormat(resp.Header); f.FormatType() != expfmt.TypeTextPlain {
		t.Fatalf("GET /metrics answered %q, want the text format", f)
	}
	return string(body)
}

// scraped is a scrape by series: `name{label="value",...}` (labels sorted
// by name) to its value; a histogram gives its _count and _sum.
type scraped map[string]float64

// flatten turns metric families into a scraped.
func flatten(fams map[string]*dto.MetricFamily) scraped {
	out := scraped{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				out[key(name, labels)] = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				out[key(name, labels)] = m.GetGauge().GetValue()
			case dto.MetricType_HISTOGRAM:
				out[key(name+"_count", labels)] = float64(m.GetHistogram().GetSampleCount())
				out[key(name+"_sum", labels)] = m.GetHistogram().GetSampleSum()
			default:
				out[key(name, labels)] = m.GetUntyped().GetValue()
			}
		}
	}
	return out
}

// key is the scraped key of name with labels ("k=v" pairs).
func key(name string, labels map[string]string) string {
	var b strings.Builder
	b.WriteString(name)
	if len(labels) == 0 {
		return b.String()
	}
	b.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(labels)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k + `="` + labels[k] + `"`)
	}
	b.WriteByte('}')
	return b.String()
}

// series is the scraped key of name with labels given as "k=v" pairs.
func series(name string, pairs ...string) string {
	labels := map[string]string{}
	for _, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		labels[k] = v
	}
	return key(name, labels)
}

// want checks the value of each series (key: value).
func (s scraped) want(t *testing.T, body string, values map[string]float64) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(values)) {
		got, ok := s[k]
		switch {
		case !ok:
			t.Errorf("no series %s", k)
		case got != values[k]:
			t.Errorf("%s = %v, want %v", k, got, values[k])
		}
	}
	if t.Failed() {
		t.Logf("scrape:\n%s", body)
	}
}

// matching returns the keys of the series named name (histograms: its
// _count) whose labels hold every "k=v" pair given.
func (s scraped) matching(name string, pairs ...string) []string {
	var out []string
	for k := range s {
		n, labels, _ := strings.Cut(k, "{")
		if n != name {
			continue
		}
		all := true
		for _, p := range pairs {
			kv := strings.Replace(p, "=", `="`, 1) + `"`
			all = all && strings.Contains(","+labels, ","+kv)
		}
		if all {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// signedTx returns the params of a sendTransaction of a signed
// transaction.
func signedTx(t testing.TB, seed uint64) []any {
	t.Helper()
	tx, err := fixtures.SignedTransaction(seed, "")
	if err != nil {
		t.Fatal(err)
	}
	b64, err := fixtures.EncodeTransaction(tx)
	if err != nil {
		t.Fatal(err)
	}
	return []any{b64, map[string]any{"encoding": "base64"}}
}
