package solroute_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/fixtures"
)

// A million keys is one call: chunks of 100, 32 in flight across the
// pool, answers in input order, every chunk at or past the first chunk's
// slot. Here 250 keys over three fake endpoints sharing a ledger that
// holds three of the accounts.
func ExampleClient_GetMultipleAccountsBulk() {
	clock, ledger := clockwork.NewFakeClock(), fixtures.NewLedger()
	members := []fixtures.Member{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	for i := range members {
		members[i].Options = fixtures.Options{Clock: clock, Slots: &fixtures.SlotOptions{}, Ledger: ledger}
	}
	cluster := fixtures.NewCluster(members)
	defer cluster.Close()
	c, err := solroute.New(solroute.Options{Endpoints: cluster.Endpoints()})
	if err != nil {
		panic(err)
	}
	defer c.Close()

	keys := make([]solana.PublicKey, 250)
	written := fixtures.Change{Accounts: map[string]*fixtures.AccountState{}}
	for i := range keys {
		keys[i] = solana.NewWallet().PublicKey()
		if i == 7 || i == 120 || i == 249 {
			written.Accounts[keys[i].String()] = &fixtures.AccountState{Lamports: 1000 + uint64(i)}
		}
	}
	if _, _, err := ledger.Apply(written); err != nil {
		panic(err)
	}
	clock.Advance(40 * 400 * time.Millisecond) // finalized
	res, err := c.GetMultipleAccountsBulk(context.Background(), keys, solroute.BulkOptions{})
	var bulkErr *solroute.BulkError
	if errors.As(err, &bulkErr) {
		for _, f := range bulkErr.Failed {
			fmt.Printf("keys %d-%d not read: %v\n", f.Start, f.End-1, f.Err)
		}
	}
	fmt.Println(len(res.Value), "values, floor", res.Floor)
	for i, a := range res.Value {
		if a != nil {
			fmt.Println(i, a.Lamports)
		}
	}
	// Output:
	// 250 values, floor 345678909
	// 7 1007
	// 120 1120
	// 249 1249
}
