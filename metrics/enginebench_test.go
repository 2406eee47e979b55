package metrics_test

import (
	"context"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/metrics"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/tracing"
	"github.com/solroute/solroute/transport"
)

// engineSource is a Source over the engine alone (what
// internal/engine's BenchmarkGetBalance measures): its pool answers
// Snapshot.
type engineSource struct {
	*engine.Engine
	pool *admission.Pool
}

func (s engineSource) Snapshot() []endpoint.Snapshot { return s.pool.Snapshot() }

// engineRows are the interleaved benchmark's engine rows: the engine as
// internal/engine's BenchmarkGetBalance builds it, alone and with a
// Collector and tracing on trace/noop's provider (issue 22's target
// rows, without the root client's own cost per call).
func engineRows(b *testing.B, url string) (names []string, calls []func(context.Context) error) {
	for _, observed := range []bool{false, true} {
		p, err := admission.New([]endpoint.Spec{{Name: "bench", URL: endpoint.NewSecret(url),
			Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {}}}}, pool.DefaultSettings(), admission.Options{})
		if err != nil {
			b.Fatal(err)
		}
		e, err := engine.New(p, transport.DefaultSettings(), engine.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = e.Close() })
		name := "engine"
		if observed {
			name = "engine+metrics+noop-tracer"
			prometheus.NewRegistry().MustRegister(metrics.New(engineSource{e, p}, metrics.Options{}))
			tracing.Instrument(e, tracing.Options{TracerProvider: noopProvider(b)})
		}
		names = append(names, name)
		calls = append(calls, engineCall(e))
	}
	for _, row := range []struct {
		name  string
		after time.Duration
	}{{"engine-2", 0}, {"engine-2+hedged", 100 * time.Millisecond}, {"engine-2+auto", transport.HedgeAuto}} {
		names = append(names, row.name)
		calls = append(calls, engineCall(twoEndpointEngine(b, url, row.after)))
	}
	return names, calls
}

// engineCall is a getBalance through e.
func engineCall(e *engine.Engine) func(context.Context) error {
	return func(ctx context.Context) error {
		var out *rpc.GetBalanceResult
		return e.CallForInto(ctx, &out, "getBalance", []any{somePubkey})
	}
}

// twoEndpointEngine is an engine over two endpoints of url hedging reads
// after hedgeAfter (0: never; transport.HedgeAuto): the rows of issue
// 22's hedged and auto targets, whose hedges are never reached on
// loopback, against the same two endpoints unhedged, so each row costs
// what being ready to hedge costs.
func twoEndpointEngine(b *testing.B, url string, hedgeAfter time.Duration) *engine.Engine {
	read := map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {}}
	p, err := admission.New([]endpoint.Spec{{Name: "one", URL: endpoint.NewSecret(url), Roles: read},
		{Name: "two", URL: endpoint.NewSecret(url), Roles: read}}, pool.DefaultSettings(), admission.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s := transport.DefaultSettings()
	s.HedgeAfter = hedgeAfter
	e, err := engine.New(p, s, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close() })
	return e
}
