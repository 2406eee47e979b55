package bench

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/solroute/solroute/metrics"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/tracing"
	"github.com/solroute/solroute/transport"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// openObserved is solroute with issue 15's instrumentation: a metrics
// Collector registered on a registry of its own, and tracing on an SDK
// provider that samples every span and batches them to an exporter that
// drops them, so that every span is built, recorded and handed over.
func openObserved(urls []string, o *Options, w *answerWatch) (client, error) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	c, err := openInstrumented(urls, o, w, tp)
	if err != nil {
		_ = tp.Shutdown(context.Background())
		return nil, err
	}
	return &observedClient{client: c, shutdown: func() { _ = tp.Shutdown(context.Background()) }}, nil
}

// openObservedNoop is openObserved with a no-op TracerProvider.
func openObservedNoop(urls []string, o *Options, w *answerWatch) (client, error) {
	return openInstrumented(urls, o, w, noop.NewTracerProvider())
}

// openInstrumented is solroute with a metrics Collector on a registry of
// its own and tracing on tp.
func openInstrumented(urls []string, o *Options, w *answerWatch, tp trace.TracerProvider) (client, error) {
	c, src, err := openSolrouteClient(urls, o, pool.DefaultSettings(), transport.DefaultSettings(), w)
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	if err := reg.Register(metrics.New(src, metrics.Options{})); err != nil {
		c.close()
		return nil, err
	}
	tracing.Instrument(src, tracing.Options{TracerProvider: tp})
	return c, nil
}

// observedClient is a client that also shuts its tracer provider down.
type observedClient struct {
	client
	shutdown func()
}

func (c *observedClient) close() {
	c.client.close()
	c.shutdown()
}
