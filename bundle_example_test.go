package solroute_test

import (
	"context"
	"fmt"
	"log"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
)

// Two signed transactions sent as one bundle to a block engine: checked
// before any request, sent once, and landed together.
func ExampleClient_SendBundle() {
	ledger := fixtures.NewLedger()
	engine := fixtures.NewBlockEngine(fixtures.Options{Name: "jito", Ledger: ledger, Slots: &fixtures.SlotOptions{}})
	defer engine.Close()
	c, err := solroute.New(solroute.Options{Endpoints: []solroute.Endpoint{{
		Name: "jito", URL: engine.URL(), BlockEngine: true, Capabilities: []string{"bundles"},
		Send: &endpoint.Limits{RequestsPerSecond: 1},
	}}})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	var txs []*solana.Transaction
	for seed := range uint64(2) {
		tx, err := fixtures.SignedTransaction(seed, "") // your signed transactions, the tip in one
		if err != nil {
			log.Fatal(err)
		}
		txs = append(txs, tx)
	}
	id, err := c.SendBundle(context.Background(), txs)
	if err != nil {
		log.Fatal(err) // bad input (*InputError, nothing sent), or ErrAmbiguousDispatch: resolve first
	}
	fmt.Println("bundle", id[:16]+"…")
	a, b := ledger.Tx(txs[0].Signatures[0].String()), ledger.Tx(txs[1].Signatures[0].String())
	fmt.Println("landed together:", a.Landed && b.Landed && a.Slot == b.Slot, "sent once:", engine.Stats().Calls["sendBundle"])
	// Output:
	// bundle f84e037ec5872711…
	// landed together: true sent once: 1
}
