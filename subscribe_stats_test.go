package solroute_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/metrics"
	"github.com/solroute/solroute/tracing"
)

// gathered is a registry's series: `name{endpoint="a"}` (labels sorted) to
// its value; a histogram gives its _count.
type gathered map[string]float64

func gather(t *testing.T, reg *prometheus.Registry) gathered {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := gathered{}
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, l.GetName()+`="`+l.GetValue()+`"`)
			}
			k, labels := f.GetName(), ""
			if len(ls) > 0 {
				labels = "{" + strings.Join(ls, ",") + "}"
			}
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				out[k+labels] = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				out[k+labels] = m.GetGauge().GetValue()
			case dto.MetricType_HISTOGRAM:
				out[k+"_count"+labels] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out
}

// sum adds the values of the series named name.
func (g gathered) sum(name string) float64 {
	v := 0.0
	for k, x := range g {
		if n, _, _ := strings.Cut(k, "{"); n == name {
			v += x
		}
	}
	return v
}

// String lists the solroute_pubsub_ series, one a line.
func (g gathered) String() string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(g)) {
		if strings.HasPrefix(k, "solroute_pubsub_") {
			b.WriteString(k + " " + strconv.FormatFloat(g[k], 'g', -1, 64) + "\n")
		}
	}
	return b.String()
}

// TestSubscriptionStatsBeforeTheFirstSubscribe: a client that never
// subscribed lists its subscribe endpoints with every count zero (no
// WebSocket opened); one with no subscribe endpoint reads the zero value.
func TestSubscriptionStatsBeforeTheFirstSubscribe(t *testing.T) {
	e := newSubEnv(t, []string{"a", "b"}, nil)
	s := e.client.SubscriptionStats()
	if len(s.Endpoints) != 2 || s.Endpoints[0].Name != "a" || s.Endpoints[1].Name != "b" {
		t.Fatalf("endpoints %+v, want a and b", s.Endpoints)
	}
	for _, ep := range s.Endpoints {
		if ep != (solroute.SubscriptionEndpointStats{Name: ep.Name}) {
			t.Errorf("%s: %+v before any subscribe", ep.Name, ep)
		}
	}
	if _, started := solroute.SubscribeActivity(e.client); started {
		t.Error("reading the stats started the engine")
	}
	httpOnly := e.cluster.Endpoints()
	for i := range httpOnly {
		httpOnly[i].Subscribe, httpOnly[i].WSURL = nil, ""
	}
	c, err := solroute.New(solroute.Options{Endpoints: httpOnly, Hooks: solroute.Hooks{Clock: e.clock}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if s := c.SubscriptionStats(); s.Endpoints != nil || s.Streams != 0 {
		t.Errorf("no subscribe endpoint: %+v, want the zero value", s)
	}
}

// TestSubscriptionSeriesMoveAfterAFailover: three endpoints, an account
// held on two (redundancy 2); one holder's sockets are cut. The
// collector's series show it: a failover, a resubscribe observed on the
// endpoint that took the leg, the cut endpoint's connection lost, every
// endpoint's notifications and the first deliveries counted, two
// subscriptions held, and the change after the cut delivered.
func TestSubscriptionSeriesMoveAfterAFailover(t *testing.T) {
	e := newSubEnv(t, []string{"a", "b", "c"}, nil)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(metrics.New(e.client, metrics.Options{}))
	acct := testKey(21)
	sub, err := e.client.AccountSubscribe(subCtx(t), acct, &solroute.AccountSubscribeOptions{Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	e.steps(2)
	before := gather(t, reg)
	var cut string
	for _, ep := range e.client.SubscriptionStats().Endpoints {
		if ep.Subscriptions > 0 {
			cut = ep.Name
			break
		}
	}
	e.cluster.PubSub(cut).Drop()
	e.steps(4)
	e.setLamports(acct, 7)
	e.steps(8)
	after := gather(t, reg)
	t.Logf("cut %s; after:\n%s", cut, after)
	if got := drainSub(sub); len(got) == 0 || got[len(got)-1].Value.Value.Lamports != 7 {
		t.Errorf("deliveries %+v, want the change after the cut", got)
	}
	checks := []struct {
		what      string
		got, want float64
		atLeast   bool
	}{
		{"failovers before the cut", before["solroute_pubsub_failovers_total"], 0, false},
		{"failovers", after["solroute_pubsub_failovers_total"], 1, true},
		{"resubscribes observed", after.sum("solroute_pubsub_resubscribe_duration_seconds_count"), 1, true},
		{"connections lost on " + cut, after[`solroute_pubsub_connections_lost_total{endpoint="`+cut+`"}`], 1, true},
		{"subscriptions held", after.sum("solroute_pubsub_subscriptions"), 2, false},
		{"streams", after["solroute_pubsub_streams"], 1, false},
		{"first deliveries", after.sum("solroute_pubsub_first_deliveries_total"), 1, true},
		{"duplicates (the other leg's copy)", after["solroute_pubsub_duplicate_notifications_total"], 1, true},
		{"read backs", after["solroute_pubsub_read_backs_total"], 1, true},
	}
	for _, n := range e.names {
		checks = append(checks, struct {
			what      string
			got, want float64
			atLeast   bool
		}{"notifications from " + n, after[`solroute_pubsub_notifications_total{endpoint="`+n+`"}`], 1, true},
			struct {
				what      string
				got, want float64
				atLeast   bool
			}{"connections to " + n, after[`solroute_pubsub_connections{endpoint="`+n+`"}`], 1, true})
	}
	for _, c := range checks {
		if (c.atLeast && c.got < c.want) || (!c.atLeast && c.got != c.want) {
			t.Errorf("%s: %v, want %s%v", c.what, c.got, map[bool]string{true: "at least "}[c.atLeast], c.want)
		}
	}
	if after[`solroute_pubsub_resubscribe_duration_seconds_count{endpoint="`+cut+`"}`] != 0 {
		t.Errorf("a resubscribe labelled with the cut endpoint %s", cut)
	}
}

// TestSubscriptionObservabilityHidesSecrets: with an API key in every
// WebSocket URL's path and query, a subscription placed, cut, refused on
// redial (an upgrade answered 429) and moved shows the key in no series
// of the scrape, no span, no SubscriptionStats (any fmt form, JSON) and
// no log line, in any encoding.
func TestSubscriptionObservabilityHidesSecrets(t *testing.T) {
	const key = "WsApIkEy"
	var logs bytes.Buffer
	var logMu sync.Mutex
	e := newSubEnvWith(t, []string{"a", "b", "c"}, func(o *solroute.Options) {
		for i := range o.Endpoints {
			o.Endpoints[i].WSURL += "/v1/" + key + "?api-key=" + key + "&x=%2F" + key
		}
		o.Hooks.Logger = slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(metrics.New(e.client, metrics.Options{}))
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	tracing.Instrument(e.client, tracing.Options{TracerProvider: tp})
	acct := testKey(22)
	sub, err := e.client.AccountSubscribe(subCtx(t), acct, &solroute.AccountSubscribeOptions{Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	e.steps(2)
	var cut string
	for _, ep := range e.client.SubscriptionStats().Endpoints {
		if ep.Subscriptions > 0 {
			cut = ep.Name
		}
	}
	e.cluster.PubSub(cut).SetFaults(fixtures.PubSubFaults{UpgradeStatus: 429, RetryAfter: "1"})
	e.cluster.PubSub(cut).Drop()
	e.setLamports(acct, 9)
	e.steps(12)
	stats := e.client.SubscriptionStats()
	texts := map[string]string{"stats %v": fmt.Sprintf("%v", stats), "stats %+v": fmt.Sprintf("%+v", stats),
		"stats %#v": fmt.Sprintf("%#v", stats)}
	if js, err := json.Marshal(stats); err == nil {
		texts["stats json"] = string(js)
	}
	var scrape bytes.Buffer
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if _, err := expfmt.MetricFamilyToText(&scrape, f); err != nil {
			t.Fatal(err)
		}
	}
	texts["scrape"] = scrape.String()
	for i, s := range spans.GetSpans() {
		texts[fmt.Sprintf("span %d", i)] = fmt.Sprintf("%s %+v %v", s.Name, s.Attributes, s.Events)
	}
	logMu.Lock()
	texts["logs"] = logs.String()
	logMu.Unlock()
	for where, s := range texts {
		if form, leaked := fixturedata.FindSecret(s, key); leaked {
			t.Errorf("%s shows the key (%s):\n%s", where, form, s)
		}
	}
	var lastErr string
	for _, ep := range stats.Endpoints {
		if ep.Name == cut {
			lastErr = ep.LastError
		}
	}
	if stats.Failovers == 0 || lastErr == "" || len(spans.GetSpans()) < 3 || !strings.Contains(texts["logs"], cut) ||
		!strings.Contains(texts["scrape"], "solroute_pubsub_failovers_total 1") {
		t.Errorf("the cut did not show everywhere (failovers %d, %s's last error %q, %d spans); logs:\n%s",
			stats.Failovers, cut, lastErr, len(spans.GetSpans()), texts["logs"])
	}
}

// lockedWriter serialises a logger's writes to a buffer the test reads.
type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
