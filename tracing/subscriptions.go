package tracing

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/solroute/solroute/internal/pubsub"
)

// keyResubscribe marks a subscription span that replaced a lost one.
const keyResubscribe = attribute.Key("solroute.resubscribe")

var _ pubsub.Watcher = (*observer)(nil)

// WatchSubscription makes a span of each subscription placed on an
// endpoint: the client hands the observer its subscription events because
// it implements pubsub.Watcher. The span (kind client, named after the
// subscribe method) runs from when the subscription was needed on an
// endpoint (the subscribe, or the loss it replaces) to the endpoint's
// answer; solroute.resubscribe is set on a replacement. It is a root span:
// the engine places subscriptions in the background, under no caller's
// context. Timestamps are the client's clock.
func (o *observer) WatchSubscription(ev pubsub.Event) {
	if ev.Kind != pubsub.EventLegUp {
		return
	}
	start := ev.At.Add(-ev.Latency)
	_, span := o.tracer.Start(context.Background(), ev.Method, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(start), trace.WithNewRoot())
	if span.IsRecording() {
		span.SetAttributes(keyRPCSystem.String(rpcSystem), keyRPCMethod.String(ev.Method),
			keyEndpoint.String(ev.Endpoint), keyResubscribe.Bool(ev.Replaced))
	}
	span.End(trace.WithTimestamp(ev.At))
}
