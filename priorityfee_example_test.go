package solroute_test

import (
	"context"
	"fmt"
	"log"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/fixtures"
)

// A compute-unit price for a transaction that write-locks one account:
// the 75th percentile of the last 150 blocks, over what two read
// endpoints say. One of them reports fees too low; a slot both report
// counts once, at the higher fee, so its answer cannot drag the estimate
// down.
func ExampleClient_PriorityFee() {
	honest := func(slot uint64, _ []string) uint64 { return 1000 + slot%10*100 } // 1000..1900
	low := func(uint64, []string) uint64 { return 10 }
	cluster := fixtures.NewCluster([]fixtures.Member{
		{Name: "provider-a", Options: fixtures.Options{PriorityFees: honest}},
		{Name: "provider-b", Options: fixtures.Options{PriorityFees: low}},
	})
	defer cluster.Close()
	c, err := solroute.New(solroute.Options{Endpoints: cluster.Endpoints()})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	market := solana.MustPublicKeyFromBase58("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")
	fee, err := c.PriorityFee(context.Background(), []solana.PublicKey{market}, 75)
	if err != nil {
		log.Fatal(err) // no endpoint answered: each one's error
	}
	fmt.Println(fee.MicroLamports, "micro-lamports per compute unit")
	fmt.Println(fee.Samples, "blocks, slots", fee.FirstSlot, "to", fee.LastSlot)
	fmt.Println("from", fee.Endpoints, "failures:", len(fee.Failures))
	// Output:
	// 1700 micro-lamports per compute unit
	// 150 blocks, slots 345678752 to 345678901
	// from [provider-a provider-b] failures: 0
}
