package solroute_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/fixtures"
)

// An account watched on two endpoints at once: each new state arrives
// once, in slot order, whichever endpoint sent it first.
func ExampleClient_AccountSubscribe() {
	// Stand-ins for two providers serving HTTP and PubSub, on one ledger,
	// on a chain of 20 ms slots (mainnet's are 400 ms: a confirmed change
	// takes about three, so the example would wait 5 s for its three).
	ledger := fixtures.NewLedger()
	var members []fixtures.Member
	for _, name := range []string{"provider-a", "provider-b"} {
		members = append(members, fixtures.Member{Name: name, PubSub: &fixtures.PubSubOptions{},
			Options: fixtures.Options{Ledger: ledger, Slots: &fixtures.SlotOptions{SlotTime: 20 * time.Millisecond}}})
	}
	cluster := fixtures.NewCluster(members)
	defer cluster.Close()

	// Each endpoint has Subscribe set (its ws_url defaults to its url
	// with ws/wss); in a document: an [endpoints.subscribe] table.
	c, err := solroute.New(solroute.Options{Endpoints: cluster.Endpoints()})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close() // ends every subscription

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	wallet := solana.MustPublicKeyFromBase58("9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin")
	sub, err := c.AccountSubscribe(ctx, wallet, &solroute.AccountSubscribeOptions{Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		log.Fatal(err)
	}
	defer sub.Close()
	for lamports := uint64(1); lamports <= 3; lamports++ {
		// A transfer lands (on a real cluster: someone else's transaction).
		_, _, _ = ledger.Apply(fixtures.Change{Accounts: map[string]*fixtures.AccountState{wallet.String(): {Lamports: lamports}}})
		acct, err := sub.Recv(ctx) // a *ws.AccountResult, as solana-go's own client returns
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("lamports:", acct.Value.Lamports)
	}
	// Output:
	// lamports: 1
	// lamports: 2
	// lamports: 3
}
