package tracing_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/tracing"
	"github.com/solroute/solroute/transport"
)

// maxNoopProviderAllocs bounds what tracing on trace/noop's provider adds
// to a call of one attempt: nothing of its own (it was 2, noop's Start
// wrapping a span-less context once per span); the bound leaves one for
// net/http's own variation.
const maxNoopProviderAllocs = 1

// TestNoopProviderAllocatesNothing: tracing on trace/noop's provider (a
// program that turned tracing off) costs a call no allocation.
func TestNoopProviderAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	o := tracing.Options{TracerProvider: noop.NewTracerProvider()}
	if extra := allocsAdded(t, o, "on the noop provider"); extra > maxNoopProviderAllocs {
		t.Fatalf("tracing on the noop provider adds %.1f allocations per call, want at most %d", extra, maxNoopProviderAllocs)
	}
}

// TestNoopProviderAsNoopsStart: on trace/noop's provider, the call's and
// the attempt's contexts carry what noop's own Start would give them: for
// a caller's context with no span, with a remote (non-recording) span
// context and with another provider's recording span, the attempt sees a
// non-recording span of the caller's span context, never the recording
// span itself; and nothing but the caller's span is exported.
func TestNoopProviderAsNoopsStart(t *testing.T) {
	_, _, c, _ := newClient(t, []fixtures.Member{member("a", 0)}, conf{})
	tracing.Instrument(c, tracing.Options{TracerProvider: noop.NewTracerProvider()})
	tp, spans, _ := recordingProvider(t)
	recCtx, caller := tp.Tracer("caller").Start(context.Background(), "caller")
	remote := trace.ContextWithRemoteSpanContext(context.Background(), caller.SpanContext())
	for _, tc := range []struct {
		name string
		ctx  context.Context
	}{{"no span", context.Background()}, {"remote span context", remote}, {"recording span", recCtx}} {
		t.Run(tc.name, func(t *testing.T) {
			// What noop's Start makes of the parent, for the call then the attempt.
			tr := noop.NewTracerProvider().Tracer(tracing.ScopeName)
			want, _ := tr.Start(tc.ctx, "getBalance")
			want, _ = tr.Start(want, "getBalance")
			wantSpan := trace.SpanFromContext(want)
			var got trace.Span
			ctx := engine.WithObserver(tc.ctx, engine.AttemptFunc(func(ctx context.Context, _ string, _ transport.Attempt) {
				got = trace.SpanFromContext(ctx)
			}))
			if err := getBalance(ctx, c); err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatal("no attempt observed")
			}
			if got.IsRecording() != wantSpan.IsRecording() || !got.SpanContext().Equal(wantSpan.SpanContext()) {
				t.Fatalf("attempt's span: recording %v, %v; noop's Start gives recording %v, %v",
					got.IsRecording(), got.SpanContext(), wantSpan.IsRecording(), wantSpan.SpanContext())
			}
		})
	}
	caller.End()
	if got := spans.GetSpans(); len(got) != 1 {
		t.Fatalf("%d spans exported, want the caller's only", len(got))
	}
}
