package engine_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/fixturespec"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/transport"
)

// The solana-go client, with every call routed through a pool of two
// endpoints: the first answers 503 once, the call fails over.
func Example_solanaGo() {
	cluster := fixtures.NewCluster([]fixtures.Member{
		{Name: "primary", Tier: 0, Options: fixtures.Options{
			Script: fixtures.FirstN(1, fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 503})}},
		{Name: "backup", Tier: 1},
	})
	defer cluster.Close()
	p, err := admission.New(fixturespec.Specs(cluster), pool.DefaultSettings(), admission.Options{})
	if err != nil {
		panic(err)
	}
	client, err := engine.New(p, transport.DefaultSettings(), engine.Options{
		Observers: []transport.Observer{engine.AttemptFunc(func(_ context.Context, method string, a transport.Attempt) {
			fmt.Printf("%s on %s: %v\n", method, a.Endpoint, a.Cause)
		})},
	})
	if err != nil {
		panic(err)
	}
	defer client.Close()

	cl := rpc.NewWithCustomRPCClient(client)
	bal, err := cl.GetBalance(context.Background(),
		solana.MustPublicKeyFromBase58("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"), rpc.CommitmentFinalized)
	if err != nil {
		panic(err)
	}
	fmt.Println("lamports:", bal.Value)
	// Output:
	// getBalance on primary: temporary-http
	// getBalance on backup: none
	// lamports: 2039280
}

// A sendTransaction whose request may have reached a server is never
// resent: the error says so and the caller checks the signature's status.
func ExampleErrAmbiguousDispatch() {
	cluster := fixtures.NewCluster([]fixtures.Member{
		{Name: "primary", Tier: 0, Options: fixtures.Options{
			Script: fixtures.Always(fixtures.Fault{Kind: fixtures.ResetAfterRead})}},
		{Name: "backup", Tier: 1},
	})
	defer cluster.Close()
	p, _ := admission.New(fixturespec.Specs(cluster), pool.DefaultSettings(), admission.Options{})
	client, _ := engine.New(p, transport.DefaultSettings(), engine.Options{})
	defer client.Close()

	tx, _ := fixtures.SignedTransaction(1, "")
	_, err := rpc.NewWithCustomRPCClient(client).SendTransaction(context.Background(), tx)
	if errors.Is(err, engine.ErrAmbiguousDispatch) {
		fmt.Println("may have been sent: poll getSignatureStatuses for", "the signature")
	}
	sig := tx.Signatures[0].String()
	fmt.Println("deliveries:", cluster.Server("primary").Deliveries(sig)+cluster.Server("backup").Deliveries(sig))
	// Output:
	// may have been sent: poll getSignatureStatuses for the signature
	// deliveries: 1
}
