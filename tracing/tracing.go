package tracing

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// ScopeName is the instrumentation scope of the spans: the name the
// tracer is asked for, which a sampler or a processor can match.
const ScopeName = "github.com/solroute/solroute/tracing"

// Options configure the spans. The zero value traces with the global
// TracerProvider.
type Options struct {
	// TracerProvider makes the tracer. Nil means otel.GetTracerProvider(),
	// read once when the Observer is made: the global provider, a no-op
	// until the program installs one with otel.SetTracerProvider (spans
	// of calls made after that are recorded, even when Instrument ran
	// before).
	TracerProvider trace.TracerProvider
}

// Observable is what Instrument adds its Observer to: *solroute.Client
// and *call.Client.
type Observable interface {
	// Observe adds an Observer to every call that starts from now on.
	Observe(transport.Observer)
}

// Instrument makes every call src starts from now on traced: a span per
// call and a child span per attempt (see the package doc). It is the
// function most callers want; it is New(o) added to src. Calls already
// under way are not traced. Instrumenting the same client twice makes two
// spans of each call and attempt (with two providers, one in each).
func Instrument(src Observable, o Options) {
	src.Observe(New(o))
}

// New returns the Observer Instrument adds: for a caller that composes
// Observers itself, or adds the same one to several clients. It is safe
// for concurrent use and holds nothing but its tracer.
func New(o Options) transport.Observer {
	tp := o.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	tracer := tp.Tracer(ScopeName)
	_, inert := tracer.(noop.Tracer)
	return &observer{
		tracer:      tracer,
		inert:       inert,
		callOpts:    []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal)},
		attemptOpts: []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)},
		callKey:     &spanKey{"call"},
		attemptKey:  &spanKey{"attempt"},
	}
}

// observer is the transport.Observer of New. Its fields are set once.
// The spans it starts travel in the contexts it returns, under its own
// keys as well as OpenTelemetry's: another Observer after it may put a
// span of its own in the context, and this one must end its own spans.
type observer struct {
	tracer trace.Tracer
	// inert is set when tracer is trace/noop's: its spans never record,
	// and CallStarted and AttemptStarted start one only where noop's Start
	// would change the context (inert.go).
	inert bool
	// callOpts and attemptOpts are the spans' start options, made once
	// (an option is a closure: making one per span would allocate).
	callOpts, attemptOpts []trace.SpanStartOption
	// callKey and attemptKey are the context keys of this observer's
	// recording spans: distinct pointers, so that two observers never
	// share one.
	callKey, attemptKey *spanKey
}

// spanKey is a context key of one observer. It is not empty, so that two
// keys never share an address.
type spanKey struct{ level string }

// CallStarted starts the call's span, a child of ctx's span. A call made
// under another call's context (from a callback, an Observer or an attempt
// observer) must never end that call's spans: this observer's keys are
// hidden from it first.
func (o *observer) CallStarted(ctx context.Context, call transport.CallInfo) context.Context {
	if o.inert {
		return o.inertStart(ctx, call, o.callOpts)
	}
	ctx = o.hide(ctx)
	ctx, span := o.tracer.Start(ctx, spanName(call), o.callOpts...)
	if !span.IsRecording() {
		return ctx
	}
	span.SetAttributes(callAttributes(call)...)
	return context.WithValue(ctx, o.callKey, span)
}

// hide returns ctx without the spans this observer stored for an outer
// call: a call whose span does not record would otherwise find them and
// end them as its own. It allocates only when there is one.
func (o *observer) hide(ctx context.Context) context.Context {
	if ctx.Value(o.callKey) != nil {
		ctx = context.WithValue(ctx, o.callKey, nil)
	}
	if ctx.Value(o.attemptKey) != nil {
		ctx = context.WithValue(ctx, o.attemptKey, nil)
	}
	return ctx
}

// AttemptStarted starts the attempt's span, a child of the call's.
func (o *observer) AttemptStarted(ctx context.Context, call transport.CallInfo, a transport.Attempt) context.Context {
	if o.inert {
		return o.inertStart(ctx, call, o.attemptOpts)
	}
	if parent, ok := ctx.Value(o.callKey).(trace.Span); ok {
		// An Observer added after this one may have made its own span
		// the context's current one: the attempt is the call's child.
		if sc, cur := parent.SpanContext(), trace.SpanContextFromContext(ctx); cur.SpanID() != sc.SpanID() || cur.TraceID() != sc.TraceID() {
			ctx = trace.ContextWithSpan(ctx, parent)
		}
	}
	ctx, span := o.tracer.Start(ctx, spanName(call), o.attemptOpts...)
	if !span.IsRecording() {
		return ctx
	}
	span.SetAttributes(attemptStartAttributes(call, a)...)
	return context.WithValue(ctx, o.attemptKey, span)
}

// AttemptEnded ends the attempt's span with its outcome. A failed attempt
// is an error, except one canceled because the other attempt of its
// hedged pair answered first: it did nothing wrong.
func (o *observer) AttemptEnded(ctx context.Context, _ transport.CallInfo, a transport.Attempt) {
	if o.inert { // it stored no span
		return
	}
	span, ok := ctx.Value(o.attemptKey).(trace.Span)
	if !ok {
		return
	}
	span.SetAttributes(attemptEndAttributes(a)...)
	if a.Failed() && !(a.Cause == retrypolicy.Canceled && a.Decision.Rule == retrypolicy.RuleSuperseded) {
		span.SetStatus(codes.Error, a.Cause.String())
	}
	span.End()
}

// CallEnded ends the call's span with its result; a failed call's span
// records its error (a *transport.CallError, secret-free) and has status
// Error.
func (o *observer) CallEnded(ctx context.Context, _ transport.CallInfo, r transport.CallResult) {
	if o.inert { // it stored no span
		return
	}
	span, ok := ctx.Value(o.callKey).(trace.Span)
	if !ok {
		return
	}
	span.SetAttributes(callEndAttributes(r)...)
	if r.Err != nil {
		span.RecordError(r.Err)
		span.SetStatus(codes.Error, callStatus(r))
	}
	span.End()
}

// callStatus is the status description of a failed call: a fixed text,
// never the error's.
func callStatus(r transport.CallResult) string {
	switch {
	case r.Ambiguous:
		return "may have reached a server; not resent"
	case r.Cause != 0:
		return r.Cause.String()
	case r.Attempts == 0:
		return "no endpoint serves the call"
	}
	return "failed"
}

// Compile-time check.
var _ transport.Observer = (*observer)(nil)
