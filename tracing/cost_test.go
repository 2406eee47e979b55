package tracing_test

import (
	"context"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/tracing"
	"github.com/solroute/solroute/transport"
)

// maxNoopAllocs bounds what tracing with no provider installed adds to a
// call of one attempt. Measured: 6, all in OpenTelemetry's global tracer
// (per span, its non-recording span boxed twice and the context carrying
// it; two spans); the Observer path of the transport adds none, and this
// package none. The bound leaves one for net/http's own variation.
const maxNoopAllocs = 7

// TestNoProviderInstalled: with no TracerProvider given and none
// installed (the global one is a no-op), Instrument works, calls succeed,
// and a call allocates at most maxNoopAllocs more than without tracing.
func TestNoProviderInstalled(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	if extra := allocsAdded(t, tracing.Options{}, "with tracing and no provider"); extra > maxNoopAllocs {
		t.Fatalf("tracing with no provider adds %.1f allocations per call, want at most %d", extra, maxNoopAllocs)
	}
}

// allocsAdded measures what Instrument with o adds to the allocations of
// a call of one attempt, logging both counts under the name what.
func allocsAdded(t *testing.T, o tracing.Options, what string) float64 {
	t.Helper()
	_, _, c, _ := newClient(t, []fixtures.Member{member("a", 0)}, conf{})
	call := func() {
		if err := getBalance(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	const runs = 300
	plain := testing.AllocsPerRun(runs, call)
	tracing.Instrument(c, o)
	traced := testing.AllocsPerRun(runs, call)
	t.Logf("allocations per call: %.1f without tracing, %.1f %s (+%.1f)", plain, traced, what, traced-plain)
	return traced - plain
}

// TestNoProviderInstalledRecordsNothing: the no-op provider's spans carry
// the caller's trace on (a context that had a span still has it) and
// nothing is exported anywhere; the call's result is unchanged.
func TestNoProviderInstalledRecordsNothing(t *testing.T) {
	_, _, c, _ := newClient(t, []fixtures.Member{member("a", 0)}, conf{})
	tracing.Instrument(c, tracing.Options{})
	tp, spans, _ := recordingProvider(t)
	ctx, caller := tp.Tracer("caller").Start(context.Background(), "caller")
	var seen trace.SpanContext
	recording := true
	ctx = engine.WithObserver(ctx, engine.AttemptFunc(func(ctx context.Context, _ string, _ transport.Attempt) {
		seen = trace.SpanContextFromContext(ctx)
		recording = trace.SpanFromContext(ctx).IsRecording()
	}))
	if err := getBalance(ctx, c); err != nil {
		t.Fatal(err)
	}
	caller.End()
	if got := spans.GetSpans(); len(got) != 1 {
		t.Fatalf("%d spans exported, want the caller's only", len(got))
	}
	if recording {
		// The caller's span is recording: the call's must be the no-op's.
		t.Fatal("the call's context carries a recording span: no call span was started")
	}
	if seen.TraceID() != caller.SpanContext().TraceID() {
		t.Fatalf("the call's context is in trace %s, want the caller's %s", seen.TraceID(), caller.SpanContext().TraceID())
	}
}

// BenchmarkCall is one successful getBalance over loopback HTTP: without
// tracing; with tracing and no provider installed (the global no-op);
// with trace/noop's provider given explicitly; with an SDK provider that
// samples nothing (its spans are made, never recorded); and recording every span
// with the SDK (into an exporter that drops them). Run with -benchmem to
// compare allocations in one run.
func BenchmarkCall(b *testing.B) {
	for _, bc := range []struct {
		name       string
		instrument func(b *testing.B, c *engine.Engine)
	}{
		{"plain", func(*testing.B, *engine.Engine) {}},
		{"global-noop", func(_ *testing.B, c *engine.Engine) { tracing.Instrument(c, tracing.Options{}) }},
		{"noop-provider", func(_ *testing.B, c *engine.Engine) {
			tracing.Instrument(c, tracing.Options{TracerProvider: noop.NewTracerProvider()})
		}},
		{"never-sampled", func(b *testing.B, c *engine.Engine) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
			b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			tracing.Instrument(c, tracing.Options{TracerProvider: tp})
		}},
		{"recording", func(b *testing.B, c *engine.Engine) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()),
				sdktrace.WithSyncer(tracetest.NewNoopExporter()))
			b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			tracing.Instrument(c, tracing.Options{TracerProvider: tp})
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			_, _, c, _ := newClient(b, []fixtures.Member{member("a", 0)}, conf{})
			bc.instrument(b, c)
			b.ReportAllocs()
			for b.Loop() {
				if err := getBalance(context.Background(), c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkObserver is what the tracing Observer does for a call of one
// successful attempt, alone (its four methods, under a context with no
// span), on each provider: no provider installed (the global no-op),
// trace/noop's, an SDK one that samples nothing, and one recording
// everything into an exporter that drops it.
func BenchmarkObserver(b *testing.B) {
	for _, bc := range []struct {
		name string
		tp   func(b *testing.B) trace.TracerProvider
	}{
		{"global-noop", func(*testing.B) trace.TracerProvider { return nil }},
		{"noop-provider", func(*testing.B) trace.TracerProvider { return noop.NewTracerProvider() }},
		{"never-sampled", func(b *testing.B) trace.TracerProvider {
			tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
			b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			return tp
		}},
		{"recording", func(b *testing.B) trace.TracerProvider {
			tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()),
				sdktrace.WithSyncer(tracetest.NewNoopExporter()))
			b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			return tp
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			o := tracing.New(tracing.Options{TracerProvider: bc.tp(b)})
			call := transport.CallInfo{Method: "getBalance", Known: true, Role: endpoint.RoleRead, Class: retrypolicy.Idempotent}
			a := transport.Attempt{Endpoint: "bench", Number: 1, Duration: 3 * time.Millisecond, Wait: time.Microsecond}
			res := transport.CallResult{Attempts: 1, Duration: 3 * time.Millisecond}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				cctx := o.CallStarted(ctx, call)
				actx := o.AttemptStarted(cctx, call, a)
				o.AttemptEnded(actx, call, a)
				o.CallEnded(cctx, call, res)
			}
		})
	}
}
