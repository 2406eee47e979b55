package metrics_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/solroute/solroute/internal/pubsubtest"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/solroute/solroute/fixtures"
)

// watchdog bounds a wait for what should come at once; it asserts no
// duration.
const watchdog = 20 * time.Second

// pubsubSeriesUnits is every subscription series, with its unit as in
// seriesUnits: counts of things (connections, subscriptions,
// notifications) carry none; heartbeat_slot is a slot number, as
// endpoint_slot is.
var pubsubSeriesUnits = map[string]string{
	"solroute_pubsub_connections":                   "",
	"solroute_pubsub_lagging_connections":           "",
	"solroute_pubsub_subscriptions":                 "",
	"solroute_pubsub_heartbeat_slot":                "",
	"solroute_pubsub_notifications_total":           "",
	"solroute_pubsub_first_deliveries_total":        "",
	"solroute_pubsub_dial_failures_total":           "",
	"solroute_pubsub_connections_lost_total":        "",
	"solroute_pubsub_stalls_total":                  "",
	"solroute_pubsub_refusals_total":                "",
	"solroute_pubsub_streams":                       "",
	"solroute_pubsub_duplicate_notifications_total": "",
	"solroute_pubsub_stale_notifications_total":     "",
	"solroute_pubsub_dropped_notifications_total":   "",
	"solroute_pubsub_failovers_total":               "",
	"solroute_pubsub_gaps_total":                    "",
	"solroute_pubsub_read_backs_total":              "",
	"solroute_pubsub_read_back_errors_total":        "",
	"solroute_pubsub_resubscribe_duration_seconds":  "seconds",
}

// pubsubMember is a member that also serves PubSub on its slot model.
func pubsubMember(name string) fixtures.Member {
	m := member(name, 0)
	m.PubSub = &fixtures.PubSubOptions{}
	m.Options.Slots = &fixtures.SlotOptions{Start: 5000}
	return m
}

// failover subscribes to roots on e's client (held on two of its three
// PubSub endpoints), cuts one holder's sockets and waits for the
// replacement live: every subscription series then has a child.
func failover(t *testing.T, e *env) {
	t.Helper()
	w := pubsubtest.NewLegWatcher(8)
	e.client.Observe(w)
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	sub, err := e.client.RootSubscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sub.Close)
	var holder string
	for range 2 { // both legs live
		select {
		case holder = <-w.Up:
		case <-ctx.Done():
			t.Fatal("the subscription's two legs never went live")
		}
	}
	e.cluster.PubSub(holder).Drop()
	select {
	case <-w.Replaced:
	case <-ctx.Done():
		t.Fatal("no leg replaced after the cut")
	}
}

// TestPubsubSeriesNamesSayTheirUnit: after a failover every subscription
// series is exported (the heartbeat slot once a heartbeat came), each
// named as the guide asks, labelled by endpoint name only, and the
// registry lints clean.
func TestPubsubSeriesNamesSayTheirUnit(t *testing.T) {
	e := newEnv(t, []fixtures.Member{pubsubMember("a"), pubsubMember("b"), pubsubMember("c")})
	failover(t, e)
	fams, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range fams {
		name := f.GetName()
		if !strings.HasPrefix(name, "solroute_pubsub_") {
			continue
		}
		seen[name] = true
		unit, ok := pubsubSeriesUnits[name]
		if !ok {
			t.Errorf("%s is exported but not in pubsubSeriesUnits: decide its unit and name (docs/observability.md)", name)
			continue
		}
		checkName(t, f, unit)
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() != "endpoint" || !slices.Contains([]string{"a", "b", "c"}, l.GetValue()) {
					t.Errorf("%s has label %s=%q: want endpoint names only", name, l.GetName(), l.GetValue())
				}
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(pubsubSeriesUnits)) {
		if !seen[name] && name != "solroute_pubsub_heartbeat_slot" {
			t.Errorf("%s is not exported", name)
		}
	}
	problems, err := testutil.GatherAndLint(e.reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

// TestNoPubsubSeriesWithoutSubscribeEndpoints: a client no endpoint of
// which serves the subscribe role exports no solroute_pubsub_ series.
func TestNoPubsubSeriesWithoutSubscribeEndpoints(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0)})
	body, _ := e.scrape()
	if strings.Contains(body, "solroute_pubsub_") {
		t.Errorf("subscription series without a subscribe endpoint:\n%s", body)
	}
}
