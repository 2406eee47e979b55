package solroute_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/balancefloor"
)

// maxBalanceConfigAllocs bounds what a commitment and a minimum context
// slot add to a GetBalance: the config object (a map and its values) and
// the params' second element. It was 13 while the config was a struct,
// which the encoder and the slot plan both took through encoding/json.
const maxBalanceConfigAllocs = 5

// TestGetBalanceConfigCostsNoJSON: GetBalance with options allocates at
// most maxBalanceConfigAllocs more than without, on a loopback server.
func TestGetBalanceConfigCostsNoJSON(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	srv := httptest.NewServer(http.HandlerFunc(balancefloor.Handler))
	t.Cleanup(srv.Close)
	c, err := solroute.New(solroute.Options{Endpoints: []solroute.Endpoint{{Name: "a", URL: srv.URL, Read: &endpoint.Limits{}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	pk := solana.MustPublicKeyFromBase58("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")
	min := uint64(1)
	allocs := func(opts solroute.BalanceOptions) float64 {
		return testing.AllocsPerRun(300, func() {
			if _, err := c.GetBalance(context.Background(), pk, opts); err != nil {
				t.Fatal(err)
			}
		})
	}
	plain := allocs(solroute.BalanceOptions{})
	withOpts := allocs(solroute.BalanceOptions{Commitment: rpc.CommitmentConfirmed, MinContextSlot: &min})
	t.Logf("allocations per GetBalance: %.1f plain, %.1f with a commitment and a minimum context slot", plain, withOpts)
	if withOpts-plain > maxBalanceConfigAllocs {
		t.Fatalf("options add %.1f allocations, want at most %d", withOpts-plain, maxBalanceConfigAllocs)
	}
}
