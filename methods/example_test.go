package methods_test

import (
	"context"
	"fmt"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/transport"
)

// Typed calls through a pool of one fake endpoint.
func Example() {
	cluster := fixtures.NewCluster([]fixtures.Member{{Name: "local"}})
	defer cluster.Close()
	p, err := admission.New(cluster.Specs, pool.DefaultSettings(), admission.Options{})
	if err != nil {
		panic(err)
	}
	tc, err := transport.New(p, transport.DefaultSettings(), transport.Options{})
	if err != nil {
		panic(err)
	}
	defer tc.Close()
	c := methods.New(tc)
	ctx := context.Background()

	fmt.Println("health:", c.GetHealth(ctx))
	v, _ := c.GetVersion(ctx)
	fmt.Println("version:", v.SolanaCore)
	h, _ := c.GetGenesisHash(ctx)
	fmt.Println("genesis:", h)
	pk, _ := methods.ParsePubkey("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")
	b, _ := c.GetBalance(ctx, pk, methods.BalanceOptions{Commitment: rpc.CommitmentFinalized})
	fmt.Println("balance:", b.Value, "at slot", b.Context.Slot)
	// Output:
	// health: <nil>
	// version: 2.2.14
	// genesis: 5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d
	// balance: 2039280 at slot 345678901
}

// An invalid public key is rejected before any request.
func ExampleParsePubkey() {
	_, err := methods.ParsePubkey("not-a-key")
	fmt.Println(err != nil)
	// Output: true
}

// solana-go's own client, routed through the pool by the transport.
func Example_solanaGo() {
	cluster := fixtures.NewCluster([]fixtures.Member{{Name: "local"}})
	defer cluster.Close()
	p, _ := admission.New(cluster.Specs, pool.DefaultSettings(), admission.Options{})
	tc, _ := transport.New(p, transport.DefaultSettings(), transport.Options{})
	defer tc.Close()

	cl := rpc.NewWithCustomRPCClient(tc)
	slot, err := cl.GetSlot(context.Background(), rpc.CommitmentFinalized)
	fmt.Println(slot, err)
	// Output: 345678901 <nil>
}
