package solroute_test

import (
	"context"
	"fmt"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/fixtures"
)

// Typed calls through a pool of one fake endpoint.
func Example_typedCalls() {
	cluster := fixtures.NewCluster([]fixtures.Member{{Name: "local"}})
	defer cluster.Close()
	c, err := solroute.New(solroute.Options{Endpoints: cluster.Endpoints()})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	ctx := context.Background()

	fmt.Println("health:", c.GetHealth(ctx))
	v, _ := c.GetVersion(ctx)
	fmt.Println("version:", v.SolanaCore)
	h, _ := c.GetGenesisHash(ctx)
	fmt.Println("genesis:", h)
	pk, _ := solroute.ParsePubkey("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")
	b, _ := c.GetBalance(ctx, pk, solroute.BalanceOptions{Commitment: rpc.CommitmentFinalized})
	fmt.Println("balance:", b.Value, "at slot", b.Context.Slot)
	// Output:
	// health: <nil>
	// version: 2.2.14
	// genesis: 5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d
	// balance: 2039280 at slot 345678901
}

// An invalid public key is rejected before any request.
func ExampleParsePubkey() {
	_, err := solroute.ParsePubkey("not-a-key")
	fmt.Println(err != nil)
	// Output: true
}

// solana-go's own client, routed through the pool.
func ExampleClient_RPC() {
	cluster := fixtures.NewCluster([]fixtures.Member{{Name: "local"}})
	defer cluster.Close()
	c, _ := solroute.New(solroute.Options{Endpoints: cluster.Endpoints()})
	defer c.Close()

	slot, err := c.RPC().GetSlot(context.Background(), rpc.CommitmentFinalized)
	fmt.Println(slot, err)
	// Output: 345678901 <nil>
}
