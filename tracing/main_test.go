package tracing_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/fixturespec"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/tracing"
	"github.com/solroute/solroute/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// epoch is the fake clocks' start.
var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// hedgeAfter is the hedge delay of the tests that hedge.
const hedgeAfter = 50 * time.Millisecond

var somePubkey = solana.MustPublicKeyFromBase58("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")

// member is a cluster member serving reads and sends, RequestTimeout 1 s.
func member(name string, tier int) fixtures.Member {
	l := endpoint.Limits{RequestTimeout: time.Second}
	return fixtures.Member{Name: name, Tier: tier,
		Read: &l, Send: &l}
}

// conf is what a test sets of a client; the zero value takes
// transport.DefaultSettings with no backoff jitter.
type conf struct {
	HedgeAfter     time.Duration
	AttemptTimeout time.Duration
	NoRetries      bool
	// Genesis turns the cluster guard on (engine.Options.Genesis).
	Genesis string
	// Edit may change the specs (URLs, headers) before the pool is built.
	Edit func([]endpoint.Spec)
}

// env is a cluster of fake endpoints on loopback, a pool over them on a
// fake clock, a transport client, and a tracer provider of the SDK whose
// spans end up in spans, their starts and ends logged in order. All of it
// is closed when the test ends.
type env struct {
	t       *testing.T
	cluster *fixtures.Cluster
	pool    *admission.Pool
	client  *engine.Engine
	clock   *clockwork.FakeClock
	tp      *sdktrace.TracerProvider
	spans   *tracetest.InMemoryExporter
	order   *orderLog
}

// newEnv starts members, builds the client and instruments it with a
// recording provider.
func newEnv(t *testing.T, members []fixtures.Member, c conf) *env {
	t.Helper()
	e := &env{t: t}
	e.cluster, e.pool, e.client, e.clock = newClient(t, members, c)
	e.tp, e.spans, e.order = recordingProvider(t)
	tracing.Instrument(e.client, tracing.Options{TracerProvider: e.tp})
	return e
}

// newClient starts members and builds a transport client over them on
// a fake clock, not traced; all of it is closed when tb ends.
func newClient(tb testing.TB, members []fixtures.Member, c conf) (*fixtures.Cluster, *admission.Pool, *engine.Engine, *clockwork.FakeClock) {
	tb.Helper()
	clock := clockwork.NewFakeClockAt(epoch)
	serverClock := clockwork.NewFakeClockAt(epoch) // never advanced: server delays never end
	for i := range members {
		members[i].Options.Clock = serverClock
	}
	cl := fixtures.NewCluster(members)
	tb.Cleanup(cl.Close)
	specs := fixturespec.Specs(cl)
	if c.Edit != nil {
		c.Edit(specs)
	}
	p, err := admission.New(specs, pool.DefaultSettings(), admission.Options{Clock: clock})
	if err != nil {
		tb.Fatal(err)
	}
	s := transport.DefaultSettings()
	s.Retry.Jitter = func(time.Duration) time.Duration { return 0 }
	if c.NoRetries {
		s.Retry.MaxRetries = 0
	}
	s.HedgeAfter, s.AttemptTimeout = c.HedgeAfter, c.AttemptTimeout
	tc, err := engine.New(p, s, engine.Options{Genesis: c.Genesis})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = tc.Close() })
	return cl, p, tc, clock
}

// recordingProvider is an SDK provider that samples everything and
// exports each span to an in-memory exporter as it ends.
func recordingProvider(t testing.TB) (*sdktrace.TracerProvider, *tracetest.InMemoryExporter, *orderLog) {
	spans, order := tracetest.NewInMemoryExporter(), &orderLog{}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithSpanProcessor(order), sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp, spans, order
}

func (e *env) server(name string) *fixtures.Server { return e.cluster.Server(name) }

// caller starts the caller's own span, the parent the call's must have.
func (e *env) caller() (context.Context, trace.Span) {
	return e.tp.Tracer("caller").Start(context.Background(), "caller")
}

// orderLog is a span processor that logs when each span starts and ends,
// by span ID: the order of events, with no clock.
type orderLog struct {
	mu     sync.Mutex
	events []orderEvent
}

type orderEvent struct {
	end bool
	id  trace.SpanID
}

func (l *orderLog) OnStart(_ context.Context, s sdktrace.ReadWriteSpan) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, orderEvent{id: s.SpanContext().SpanID()})
}

func (l *orderLog) OnEnd(s sdktrace.ReadOnlySpan) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, orderEvent{end: true, id: s.SpanContext().SpanID()})
}

func (*orderLog) Shutdown(context.Context) error   { return nil }
func (*orderLog) ForceFlush(context.Context) error { return nil }

// lines renders the log with each span's label from spans: "start X",
// "end X".
func (l *orderLog) lines(spans tracetest.SpanStubs) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, ev := range l.events {
		word := "start"
		if ev.end {
			word = "end"
		}
		label := ev.id.String()
		for _, s := range spans {
			if s.SpanContext.SpanID() == ev.id {
				label = spanLabel(s)
			}
		}
		out = append(out, word+" "+label)
	}
	return out
}

// spanLabel names a span for the tests: "caller", "call getBalance",
// "attempt getBalance #1 a".
func spanLabel(s tracetest.SpanStub) string {
	a := attrs(s)
	switch s.SpanKind {
	case trace.SpanKindInternal:
		if s.Name == "caller" {
			return "caller"
		}
		return "call " + s.Name
	case trace.SpanKindClient:
		return fmt.Sprintf("attempt %s #%d %s", s.Name, a["solroute.attempt"].AsInt64(), a["solroute.endpoint"].AsString())
	}
	return s.Name
}

// attrs is a span's attributes by key.
func attrs(s tracetest.SpanStub) map[string]attribute.Value { return attrMap(s.Attributes) }

// attrMap is kvs by key.
func attrMap(kvs []attribute.KeyValue) map[string]attribute.Value {
	m := make(map[string]attribute.Value, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value
	}
	return m
}

// tree is the exported spans: the caller's, the calls' and the attempts'.
type tree struct {
	t     *testing.T
	spans tracetest.SpanStubs
}

func (e *env) tree() tree { return tree{t: e.t, spans: e.spans.GetSpans()} }

// one returns the only span labelled label.
func (tr tree) one(label string) tracetest.SpanStub {
	tr.t.Helper()
	var found []tracetest.SpanStub
	for _, s := range tr.spans {
		if spanLabel(s) == label {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		tr.t.Fatalf("%d spans %q; spans: %s", len(found), label, strings.Join(tr.labels(), ", "))
	}
	return found[0]
}

// labels are the spans' labels, sorted.
func (tr tree) labels() []string {
	var out []string
	for _, s := range tr.spans {
		out = append(out, spanLabel(s))
	}
	slices.Sort(out)
	return out
}

// wantLabels checks the spans are exactly want (in any order).
func (tr tree) wantLabels(want ...string) {
	tr.t.Helper()
	want = slices.Clone(want)
	slices.Sort(want)
	if got := tr.labels(); !slices.Equal(got, want) {
		tr.t.Fatalf("spans:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// hedgedPair checks the spans of one hedged getBalance, a caller's, whose
// attempts were #1 on a and #2 on b: those four spans, each attempt a
// child of the call, and no status an error. It returns the call's and
// the attempts' spans for the checks that tell the cases apart.
func (tr tree) hedgedPair() (call, a, b tracetest.SpanStub) {
	tr.t.Helper()
	tr.wantLabels("caller", "call getBalance", "attempt getBalance #1 a", "attempt getBalance #2 b")
	call, a, b = tr.one("call getBalance"), tr.one("attempt getBalance #1 a"), tr.one("attempt getBalance #2 b")
	childOf(tr.t, a, call)
	childOf(tr.t, b, call)
	if a.Status.Code != codes.Unset || b.Status.Code != codes.Unset || call.Status.Code != codes.Unset {
		tr.t.Errorf("statuses: call %+v, a %+v, b %+v; want none an error", call.Status, a.Status, b.Status)
	}
	return call, a, b
}

// childOf checks that child's parent is parent, in the same trace.
func childOf(t *testing.T, child, parent tracetest.SpanStub) {
	t.Helper()
	if child.Parent.SpanID() != parent.SpanContext.SpanID() || child.SpanContext.TraceID() != parent.SpanContext.TraceID() {
		t.Fatalf("%s: parent %s in trace %s, want %s (%s) in trace %s", spanLabel(child),
			child.Parent.SpanID(), child.SpanContext.TraceID(), parent.SpanContext.SpanID(), spanLabel(parent),
			parent.SpanContext.TraceID())
	}
}

// wantAttrs checks s has each of want, formatted with Value.String.
func wantAttrs(t *testing.T, s tracetest.SpanStub, want map[string]string) {
	t.Helper()
	got := attrs(s)
	for k, w := range want {
		v, ok := got[k]
		if w == "<absent>" {
			if ok {
				t.Errorf("%s: %s = %s, want it absent", spanLabel(s), k, v.String())
			}
			continue
		}
		if !ok || v.String() != w {
			t.Errorf("%s: %s = %q (set %v), want %q", spanLabel(s), k, v.String(), ok, w)
		}
	}
}

func wantLines(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("events:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// getBalance calls getBalance through the transport client.
func getBalance(ctx context.Context, c *engine.Engine) error {
	var out *rpc.GetBalanceResult
	return c.CallForInto(ctx, &out, "getBalance", []any{somePubkey})
}

// sendParams returns a signed transaction's sendTransaction params.
func sendParams(t testing.TB, seed uint64) []any {
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

// guardCtx bounds a wait on another goroutine in real time, so that a
// broken test fails instead of hanging; it is never what a test asserts.
func guardCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// async runs f on its own goroutine.
func async(f func() error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	return ch
}

// wait returns the result of ch, failing the test if it never comes.
func wait(t *testing.T, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(10 * time.Second): // a guard against a hung test, not a measurement
		t.Fatal("call never returned")
		return nil
	}
}
