package tracing_test

import (
	"context"
	"testing"
	"time"

	"github.com/solroute/solroute/internal/pubsubtest"

	"github.com/jonboulle/clockwork"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/tracing"
)

// subscribeAndCut builds a traced client over three PubSub endpoints
// (wsURL rewrites each WebSocket URL), subscribes to roots, waits for both
// legs live, cuts one holder's sockets and waits for the replacement. It
// returns the spans and the endpoint cut.
func subscribeAndCut(t *testing.T, wsURL func(string) string) (tracetest.SpanStubs, string) {
	t.Helper()
	clock := clockwork.NewFakeClockAt(epoch)
	var ms []fixtures.Member
	for _, n := range []string{"a", "b", "c"} {
		ms = append(ms, fixtures.Member{Name: n, PubSub: &fixtures.PubSubOptions{},
			Options: fixtures.Options{Clock: clock, Slots: &fixtures.SlotOptions{Start: 5000}}})
	}
	cl := fixtures.NewCluster(ms)
	t.Cleanup(cl.Close)
	eps := cl.Endpoints()
	for i := range eps {
		eps[i].WSURL = wsURL(eps[i].WSURL)
	}
	c, err := solroute.New(solroute.Options{Endpoints: eps, Hooks: solroute.Hooks{Clock: clock}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	tp, spans, _ := recordingProvider(t)
	tracing.Instrument(c, tracing.Options{TracerProvider: tp})
	w := pubsubtest.NewLegWatcher(8)
	c.Observe(w)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sub, err := c.RootSubscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	var holder string
	for range 2 {
		select {
		case holder = <-w.Up:
		case <-ctx.Done():
			t.Fatal("the subscription's two legs never went live")
		}
	}
	cl.PubSub(holder).Drop()
	select {
	case <-w.Replaced:
	case <-ctx.Done():
		t.Fatal("no leg replaced after the cut")
	}
	return spans.GetSpans(), holder
}

// TestSubscriptionSpans: each placement of a subscription on an endpoint
// is a client span named after the subscribe method, from when it was
// needed to the endpoint's answer, with the endpoint's name; the one
// that replaced the leg lost with the cut endpoint says so.
func TestSubscriptionSpans(t *testing.T) {
	spans, cut := subscribeAndCut(t, func(u string) string { return u })
	var first, again []string
	for _, s := range spans {
		if s.Name != "rootSubscribe" {
			continue
		}
		attrs := map[string]string{}
		for _, kv := range s.Attributes {
			attrs[string(kv.Key)] = kv.Value.String()
		}
		if s.SpanKind != trace.SpanKindClient || attrs["rpc.system"] != "jsonrpc" || attrs["rpc.method"] != "rootSubscribe" ||
			s.EndTime.Before(s.StartTime) || s.Parent.IsValid() {
			t.Errorf("span %+v: want a root client span of rootSubscribe", s)
		}
		if attrs["solroute.resubscribe"] == "true" {
			again = append(again, attrs["solroute.endpoint"])
		} else {
			first = append(first, attrs["solroute.endpoint"])
		}
	}
	if len(first) != 2 || len(again) != 1 || again[0] == cut {
		t.Errorf("subscribe spans on %v, resubscribe spans on %v (cut %s): want two, then one elsewhere", first, again, cut)
	}
}

// TestSubscriptionSpansShowNoSecret: a key in the WebSocket URL's path
// and in its query (where providers put it) shows in no span of a
// subscription's placements and its failover, in any encoding.
func TestSubscriptionSpansShowNoSecret(t *testing.T) {
	for name, rewrite := range map[string]func(string) string{
		"ws_url path":  func(u string) string { return u + "/" + marker },
		"ws_url query": func(u string) string { return u + "/?api-key=" + marker },
		"ws_url both":  func(u string) string { return u + "/v1/" + marker + "?api-key=" + marker + "&x=%2F" + marker },
	} {
		t.Run(name, func(t *testing.T) {
			spans, _ := subscribeAndCut(t, rewrite)
			if len(spans) < 3 {
				t.Fatalf("%d spans: the subscription's placements were not traced", len(spans))
			}
			for s, where := range spanTexts(spans) {
				if form, leaked := fixturedata.FindSecret(s, marker); leaked {
					t.Errorf("%s shows the secret (%s):\n%s", where, form, s)
				}
			}
		})
	}
}
