package engine_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/transport"
)

// benchHedgeAfter is the fixed hedge delay of the hedged row: far above a
// loopback answer, so that no hedge starts and the row measures what
// being ready to hedge costs a call.
const benchHedgeAfter = 100 * time.Millisecond

// twoEndpoints returns an engine over two endpoints of one server (a
// hedge needs another endpoint) with settings s, on a pool of its own.
func twoEndpoints(b *testing.B, url string, s transport.Settings) *engine.Engine {
	b.Helper()
	read := map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {}}
	p, err := admission.New([]endpoint.Spec{
		{Name: "a", URL: endpoint.NewSecret(url), Roles: read},
		{Name: "b", URL: endpoint.NewSecret(url), Roles: read},
	}, pool.DefaultSettings(), admission.Options{})
	if err != nil {
		b.Fatal(err)
	}
	e, err := engine.New(p, s, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close() })
	return e
}

// BenchmarkGetBalanceHedged compares plain reads with hedged ones (a
// fixed HedgeAfter, and HedgeAuto), each on two endpoints of one
// loopback handler, sequentially and with 64 callers: issue 22 holds the
// hedged and auto rows to 1.05× plain's time (plans/015-call-cost.md).
func BenchmarkGetBalanceHedged(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(balanceHandler))
	defer srv.Close()
	ctx := context.Background()
	hedged, auto := transport.DefaultSettings(), transport.DefaultSettings()
	hedged.HedgeAfter, auto.HedgeAfter = benchHedgeAfter, transport.HedgeAuto
	for _, row := range []struct {
		name string
		s    transport.Settings
	}{{"plain", transport.DefaultSettings()}, {"hedged", hedged}, {"auto", auto}} {
		e := twoEndpoints(b, srv.URL, row.s)
		tg := benchTarget{row.name, func(ctx context.Context) (uint64, error) {
			out, err := getBalance(ctx, e)
			if err != nil {
				return 0, err
			}
			return out.Value, nil
		}}
		b.Run(row.name+"/sequential", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if v, err := tg.call(ctx); err != nil || v != 2039280 {
					b.Fatal(v, err)
				}
			}
		})
		b.Run(row.name+"/64-callers", func(b *testing.B) { tg.runCallers(b, ctx) })
	}
}
