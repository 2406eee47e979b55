package tracing_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/tracing"
	"github.com/solroute/solroute/transport"
)

// TestFailoverSpans: a 503 on tier 0, then tier 1 answers. The call's
// span is the caller's child, both attempts the call's; the first says
// it was retried, the second answered.
func TestFailoverSpans(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 1)}, conf{})
	e.server("a").SetFault(fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 503})
	ctx, caller := e.caller()
	if err := getBalance(ctx, e.client); err != nil {
		t.Fatal(err)
	}
	caller.End()

	tr := e.tree()
	tr.wantLabels("caller", "call getBalance", "attempt getBalance #1 a", "attempt getBalance #2 b")
	call, first, second := tr.one("call getBalance"), tr.one("attempt getBalance #1 a"), tr.one("attempt getBalance #2 b")
	childOf(t, call, tr.one("caller"))
	childOf(t, first, call)
	childOf(t, second, call)
	if call.SpanKind != trace.SpanKindInternal || first.SpanKind != trace.SpanKindClient {
		t.Fatalf("kinds %v and %v, want internal and client", call.SpanKind, first.SpanKind)
	}
	wantAttrs(t, call, map[string]string{
		"rpc.system": "jsonrpc", "rpc.method": "getBalance", "solroute.role": "read",
		"solroute.attempts": "2", "solroute.ambiguous": "false", "solroute.cause": "none",
	})
	wantAttrs(t, first, map[string]string{
		"rpc.system": "jsonrpc", "rpc.method": "getBalance",
		"solroute.endpoint": "a", "solroute.tier": "0", "solroute.attempt": "1", "solroute.hedge": "false",
		"solroute.wait_ms": "0", "solroute.dispatch": "answered", "solroute.cause": "temporary-http",
		"solroute.fault": "endpoint", "solroute.decision": "retry", "http.response.status_code": "503",
		"rpc.jsonrpc.error_code": "<absent>", "solroute.in_doubt": "false", "solroute.timeout_ms": "500",
	})
	wantAttrs(t, second, map[string]string{
		"solroute.endpoint": "b", "solroute.tier": "1", "solroute.attempt": "2", "solroute.hedge": "false",
		"solroute.dispatch": "answered", "solroute.cause": "none", "solroute.decision": "none",
		"solroute.fault": "<absent>", "http.response.status_code": "200", "solroute.in_doubt": "false",
	})
	if call.Status.Code != codes.Unset || second.Status.Code != codes.Unset ||
		first.Status.Code != codes.Error || first.Status.Description != "temporary-http" {
		t.Fatalf("statuses: call %+v, a %+v, b %+v; want a's error only", call.Status, first.Status, second.Status)
	}
	wantLines(t, e.order.lines(tr.spans),
		"start caller",
		"start call getBalance",
		"start attempt getBalance #1 a",
		"end attempt getBalance #1 a",
		"start attempt getBalance #2 b",
		"end attempt getBalance #2 b",
		"end call getBalance",
		"end caller")
}

// TestHedgeSpans: a hangs, the hedge to b answers. The two attempt spans
// overlap (b starts before a ends), b's is the hedge, a's says it was
// superseded and is no error: the transport canceled it.
func TestHedgeSpans(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 0)}, conf{HedgeAfter: hedgeAfter})
	e.server("a").SetFault(fixtures.Fault{Kind: fixtures.Hang})
	ctx, caller := e.caller()
	g := guardCtx(t)
	done := async(func() error { return getBalance(ctx, e.client) })
	if err := e.server("a").WaitRequests(g, 1); err != nil {
		t.Fatal(err)
	}
	if err := e.clock.BlockUntilContext(g, 2); err != nil { // a's attempt timer, the hedge's
		t.Fatal(err)
	}
	e.clock.Advance(hedgeAfter)
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	caller.End()

	tr := e.tree()
	call, a, b := tr.hedgedPair()
	childOf(t, call, tr.one("caller"))
	wantAttrs(t, call, map[string]string{"solroute.attempts": "2", "solroute.ambiguous": "false"})
	wantAttrs(t, a, map[string]string{
		"solroute.hedge": "false", "solroute.decision": "superseded", "solroute.cause": "canceled",
		"solroute.dispatch": "maybe-dispatched", "http.response.status_code": "<absent>",
	})
	wantAttrs(t, b, map[string]string{"solroute.hedge": "true", "solroute.decision": "none", "solroute.cause": "none"})
	wantLines(t, e.order.lines(tr.spans),
		"start caller",
		"start call getBalance",
		"start attempt getBalance #1 a",
		"start attempt getBalance #2 b",
		"end attempt getBalance #1 a",
		"end attempt getBalance #2 b",
		"end call getBalance",
		"end caller")
}

// TestAmbiguousSendSpans: the connection is reset after the send was
// read. One attempt, not resent; the call's span says ambiguous, has
// status Error with a fixed description and records the call's error.
func TestAmbiguousSendSpans(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("bad", 0), member("good", 1)}, conf{})
	e.server("bad").SetFault(fixtures.Fault{Kind: fixtures.ResetAfterRead})
	ctx, caller := e.caller()
	var sig solana.Signature
	err := e.client.CallForInto(ctx, &sig, "sendTransaction", sendParams(t, 900))
	if !errors.Is(err, engine.ErrAmbiguousDispatch) {
		t.Fatalf("error %v, want ErrAmbiguousDispatch", err)
	}
	caller.End()

	tr := e.tree()
	tr.wantLabels("caller", "call sendTransaction", "attempt sendTransaction #1 bad")
	call, bad := tr.one("call sendTransaction"), tr.one("attempt sendTransaction #1 bad")
	childOf(t, call, tr.one("caller"))
	childOf(t, bad, call)
	wantAttrs(t, call, map[string]string{
		"rpc.method": "sendTransaction", "solroute.role": "send",
		"solroute.attempts": "1", "solroute.ambiguous": "true", "solroute.cause": "connection",
	})
	wantAttrs(t, bad, map[string]string{
		"solroute.dispatch": "maybe-dispatched", "solroute.cause": "connection",
		"solroute.decision": "maybe-dispatched", "solroute.fault": "endpoint",
	})
	if call.Status.Code != codes.Error || call.Status.Description != "may have reached a server; not resent" ||
		bad.Status.Code != codes.Error || bad.Status.Description != "connection" {
		t.Fatalf("statuses: call %+v, attempt %+v", call.Status, bad.Status)
	}
	if len(call.Events) != 1 || call.Events[0].Name != "exception" {
		t.Fatalf("call events %+v, want the recorded error", call.Events)
	}
	ev := attrMap(call.Events[0].Attributes)
	if ev["exception.type"].AsString() != "*transport.CallError" || ev["exception.message"].AsString() != err.Error() {
		t.Fatalf("exception %v, want the *CallError's text", ev)
	}
	if n := e.server("good").Stats().Calls["sendTransaction"]; n != 0 {
		t.Fatalf("the send was resent (%d)", n)
	}
}

// TestSpanNames: a method the registry does not know names its spans
// "other" (rpc.method keeps it); a batch is "batch" with its size; a call
// admitted nowhere has a call span and no attempt span.
func TestSpanNames(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0)}, conf{NoRetries: true})
	_ = e.client.CallForInto(context.Background(), nil, "getNoSuchThing", nil)
	if _, err := e.client.CallBatch(context.Background(), jsonrpc.RPCRequests{{Method: "getHealth"}, {Method: "getSlot"}}); err != nil {
		t.Fatal(err)
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := getBalance(canceled, e.client); err == nil {
		t.Fatal("a canceled call succeeded")
	}
	tr := e.tree()
	tr.wantLabels("call other", "attempt other #1 a", "call batch", "attempt batch #1 a", "call getBalance")
	wantAttrs(t, tr.one("call other"), map[string]string{"rpc.method": "getNoSuchThing", "solroute.cause": "rpc-application"})
	wantAttrs(t, tr.one("attempt other #1 a"), map[string]string{"rpc.method": "getNoSuchThing", "rpc.jsonrpc.error_code": "-32601"})
	wantAttrs(t, tr.one("call batch"), map[string]string{"rpc.method": "batch", "solroute.batch_size": "2", "solroute.attempts": "1"})
	wantAttrs(t, tr.one("call getBalance"), map[string]string{"solroute.attempts": "0", "solroute.cause": "canceled"})
	if s := tr.one("call getBalance").Status; s.Code != codes.Error || s.Description != "canceled" {
		t.Fatalf("canceled call's status %+v", s)
	}
}

// TestTwoInstrumentsEachEndTheirOwnSpans: two tracers on one client, each
// with its provider: each sees every span, each attempt the child of its
// own call span, though the other's span is current in the context.
func TestTwoInstrumentsEachEndTheirOwnSpans(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 1)}, conf{})
	tp2, spans2, _ := recordingProvider(t)
	tracing.Instrument(e.client, tracing.Options{TracerProvider: tp2})
	e.server("a").SetFault(fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 503})
	if err := getBalance(context.Background(), e.client); err != nil {
		t.Fatal(err)
	}
	for i, tr := range []tree{e.tree(), {t: t, spans: spans2.GetSpans()}} {
		tr.wantLabels("call getBalance", "attempt getBalance #1 a", "attempt getBalance #2 b")
		call := tr.one("call getBalance")
		childOf(t, tr.one("attempt getBalance #1 a"), call)
		childOf(t, tr.one("attempt getBalance #2 b"), call)
		if i == 1 {
			// The second provider's call span continues the first's.
			childOf(t, call, e.tree().one("call getBalance"))
		}
	}
}

// TestNoTraceHeaderIsSent: the spans stay in this process; no request
// carries a trace context to a provider.
func TestNoTraceHeaderIsSent(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0)}, conf{})
	ctx, caller := e.caller()
	if err := getBalance(ctx, e.client); err != nil {
		t.Fatal(err)
	}
	caller.End()
	if len(e.spans.GetSpans()) != 3 {
		t.Fatalf("%d spans, want caller, call, attempt", len(e.spans.GetSpans()))
	}
	for _, r := range e.server("a").Requests() {
		for _, h := range []string{"Traceparent", "Tracestate", "Baggage", "Uber-Trace-Id", "X-B3-Traceid", "B3"} {
			if v := r.Header.Get(h); v != "" {
				t.Fatalf("request carries %s: %q", h, v)
			}
		}
	}
}

// TestBackgroundRequestsAreNotTraced: the cluster guard's getGenesisHash
// is the client's own request, not a call: it has no span.
func TestBackgroundRequestsAreNotTraced(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0)}, conf{Genesis: fixturedata.GenesisMainnetBeta})
	if err := getBalance(context.Background(), e.client); err != nil {
		t.Fatal(err)
	}
	g := guardCtx(t)
	for verified := false; !verified; {
		verified = true
		for _, s := range e.pool.Snapshot() {
			verified = verified && s.Verification != endpoint.Unverified
		}
		select {
		case <-g.Done():
			t.Fatal("the endpoint was never verified")
		case <-time.After(time.Millisecond): // polling another goroutine's work, not a measurement
		}
	}
	if n := e.server("a").Stats().Calls["getGenesisHash"]; n != 1 {
		t.Fatalf("the guard sent %d getGenesisHash, want 1", n)
	}
	e.tree().wantLabels("call getBalance", "attempt getBalance #1 a")
}

// dropMethod samples every span but those named name.
type dropMethod struct{ name string }

func (d dropMethod) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	if p.Name == d.name {
		return sdktrace.SamplingResult{Decision: sdktrace.Drop}
	}
	return sdktrace.SamplingResult{Decision: sdktrace.RecordAndSample}
}

func (d dropMethod) Description() string { return "drop " + d.name }

// TestNestedCallNeverEndsTheOuterSpans: a call made under another call's
// context (from an attempt observer), whose own span is sampled out and
// which fails, ends none of the outer call's spans.
func TestNestedCallNeverEndsTheOuterSpans(t *testing.T) {
	_, _, c, _ := newClient(t, []fixtures.Member{member("a", 0)}, conf{})
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(dropMethod{"other"}), sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	tracing.Instrument(c, tracing.Options{TracerProvider: tp})
	nested := 0
	ctx := engine.WithObserver(context.Background(), engine.AttemptFunc(func(ctx context.Context, method string, _ transport.Attempt) {
		if method != "getBalance" {
			return
		}
		nested++
		// A method the registry does not know: its spans are named
		// "other", which the sampler drops, and it fails.
		if err := c.CallForInto(ctx, nil, "getNoSuchThing", nil); err == nil {
			t.Error("getNoSuchThing succeeded")
		}
	}))
	if err := getBalance(ctx, c); err != nil {
		t.Fatal(err)
	}
	got := spans.GetSpans()
	if nested != 1 || len(got) != 2 {
		t.Fatalf("%d nested calls, %d spans; want 1 and the outer call's two", nested, len(got))
	}
	for _, s := range got {
		if s.Name != "getBalance" {
			t.Errorf("span %q recorded", s.Name)
		}
		if s.Status.Code != codes.Unset || len(s.Events) != 0 {
			t.Errorf("the outer span %s has status %+v and %d events: the nested call's failure ended it", spanLabel(s), s.Status, len(s.Events))
		}
	}
}
