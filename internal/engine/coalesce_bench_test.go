package engine_test

import (
	"context"
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/balancefloor"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/transport"
)

// distinctKeys are the accounts BenchmarkGetBalanceCoalesce reads in
// turn: no two calls in flight together ask the same.
func distinctKeys() []solana.PublicKey {
	keys := make([]solana.PublicKey, 4096)
	for i := range keys {
		binary.BigEndian.PutUint64(keys[i][24:], uint64(i)+1)
	}
	return keys
}

// coalesceEngine is an engine over url with Settings.Coalesce set to list.
func coalesceEngine(b *testing.B, url string, list []string) *engine.Engine {
	b.Helper()
	s := transport.DefaultSettings()
	s.Coalesce = list
	return oneEndpoint(b, url, endpoint.Limits{}, pool.DefaultSettings(), s)
}

// BenchmarkGetBalanceCoalesce is what coalescing costs a read that shares
// nothing: getBalance of a different account every call, with getBalance
// coalesced ("on") and not ("off"), sequentially and with 64 callers, on
// one loopback handler. Issue 25 holds on to off at ≤ 1.02× (ratios only
// hold within one run; plans/018-coalescing-section.md).
func BenchmarkGetBalanceCoalesce(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(balancefloor.Handler))
	defer srv.Close()
	keys := distinctKeys()
	ctx := context.Background()
	for _, row := range []struct {
		name string
		list []string
	}{{"off", nil}, {"on", []string{"getBalance"}}} {
		e := coalesceEngine(b, srv.URL, row.list)
		var next atomic.Uint64
		tg := benchTarget{row.name, func(ctx context.Context) (uint64, error) {
			var out *rpc.GetBalanceResult
			key := keys[next.Add(1)%uint64(len(keys))]
			if err := e.CallForInto(ctx, &out, "getBalance", []any{key}); err != nil {
				return 0, err
			}
			return out.Value, nil
		}}
		tg.run(b, ctx)
	}
}
