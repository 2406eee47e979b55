package tracing

import (
	"context"

	"go.opentelemetry.io/otel/trace"

	"github.com/solroute/solroute/transport"
)

// inertStart is what trace/noop's Start does to ctx, without the
// allocation it makes for a context that has no span (plans/015,
// "Observers"). noop's Start returns ctx itself when ctx's span is a
// non-recording one of a valid span context, and otherwise ctx with a
// non-recording span of ctx's span context: for a ctx with no span (or a
// non-recording one of an invalid span context), that is a context whose
// span is non-recording with the same invalid span context, which ctx
// already is. Only a recording span in ctx (another provider's) needs
// noop's Start: the call's context must not carry it, or work under the
// call would record into it (TestNoopProviderAsNoopsStart).
//
// The global provider with no delegate is not inert for this purpose: its
// tracer is where OpenTelemetry's eBPF auto-instrumentation attaches, and
// skipping its Start would hide the call from it.
func (o *observer) inertStart(ctx context.Context, call transport.CallInfo, opts []trace.SpanStartOption) context.Context {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx
	}
	ctx, _ = o.tracer.Start(ctx, spanName(call), opts...)
	return ctx
}
