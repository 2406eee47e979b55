package tracing_test

import (
	"context"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/tracing"
)

// TestSolanaGoClientSpans: calls through solana-go's client over the root
// client (RPC(), which is rpc.NewWithCustomRPCClient over its transport)
// and through the root's typed calls are traced like any other: a call
// span, the caller's child, and an attempt span under it.
func TestSolanaGoClientSpans(t *testing.T) {
	srv := fixtures.NewServer(fixtures.Options{Name: "provider"})
	t.Cleanup(srv.Close)
	c, err := solroute.New(solroute.Options{Endpoints: []solroute.Endpoint{
		{Name: "provider", URL: srv.URL(), Read: &endpoint.Limits{}, Send: &endpoint.Limits{}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	tp, spans, _ := recordingProvider(t)
	tracing.Instrument(c, tracing.Options{TracerProvider: tp})

	for name, call := range map[string]func(ctx context.Context) error{
		"RPC()": func(ctx context.Context) error {
			_, err := c.RPC().GetBalance(ctx, somePubkey, rpc.CommitmentFinalized)
			return err
		},
		"NewWithCustomRPCClient": func(ctx context.Context) error {
			_, err := rpc.NewWithCustomRPCClient(c).GetBalance(ctx, somePubkey, rpc.CommitmentFinalized)
			return err
		},
		"typed": func(ctx context.Context) error {
			_, err := c.GetBalance(ctx, somePubkey, solroute.BalanceOptions{})
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			spans.Reset()
			ctx, caller := tp.Tracer("caller").Start(t.Context(), "caller")
			if err := call(ctx); err != nil {
				t.Fatal(err)
			}
			caller.End()
			tr := tree{t: t, spans: spans.GetSpans()}
			tr.wantLabels("caller", "call getBalance", "attempt getBalance #1 provider")
			childOf(t, tr.one("call getBalance"), tr.one("caller"))
			childOf(t, tr.one("attempt getBalance #1 provider"), tr.one("call getBalance"))
			wantAttrs(t, tr.one("attempt getBalance #1 provider"), map[string]string{
				"solroute.endpoint": "provider", "solroute.cause": "none", "http.response.status_code": "200",
			})
		})
	}
}
