package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
)

func TestSolanaGoClientThroughThePool(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 1)}, conf{}, nil)
	// a rate limits the first call, so failover is part of the path.
	e.server("a").SetScript(fixtures.FirstN(1, fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 429}))
	cl := rpc.NewWithCustomRPCClient(e.client)
	ctx := context.Background()

	health, err := cl.GetHealth(ctx)
	if err != nil || health != rpc.HealthOk {
		t.Fatalf("GetHealth %q, %v", health, err)
	}
	ver, err := cl.GetVersion(ctx)
	if err != nil || ver.SolanaCore != fixturedata.RecordedSolanaCore || ver.FeatureSet != fixturedata.RecordedFeatureSet {
		t.Fatalf("GetVersion %+v, %v", ver, err)
	}
	hash, err := cl.GetGenesisHash(ctx)
	if err != nil || hash != solana.MustHashFromBase58(fixturedata.GenesisMainnetBeta) {
		t.Fatalf("GetGenesisHash %s, %v", hash, err)
	}
	bal, err := cl.GetBalance(ctx, somePubkey, rpc.CommitmentFinalized)
	if err != nil || bal.Value != fixturedata.RecordedBalance {
		t.Fatalf("GetBalance %+v, %v", bal, err)
	}
	slot, err := cl.GetSlot(ctx, rpc.CommitmentProcessed)
	if err != nil || slot != fixturedata.RecordedSlot {
		t.Fatalf("GetSlot %d, %v", slot, err)
	}

	// A real signed transfer, built with solana-go.
	from, to := solana.NewWallet(), solana.NewWallet()
	tx, err := solana.NewTransaction([]solana.Instruction{
		system.NewTransferInstruction(1, from.PublicKey(), to.PublicKey()).Build(),
	}, solana.MustHashFromBase58(fixturedata.RecordedBlockhash), solana.TransactionPayer(from.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Sign(func(k solana.PublicKey) *solana.PrivateKey {
		if k.Equals(from.PublicKey()) {
			return &from.PrivateKey
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sig, err := cl.SendTransaction(ctx, tx)
	if err != nil || sig != tx.Signatures[0] {
		t.Fatalf("SendTransaction %s, %v", sig, err)
	}
	total := e.server("a").Deliveries(sig.String()) + e.server("b").Deliveries(sig.String())
	if total != 1 {
		t.Fatalf("delivered %d times", total)
	}
	// Every call went through the pool: the servers saw all six methods.
	var methods []string
	for _, name := range []string{"a", "b"} {
		for _, r := range e.server(name).Requests() {
			methods = append(methods, r.Method)
		}
	}
	for _, m := range []string{"getHealth", "getVersion", "getGenesisHash", "getBalance", "getSlot", "sendTransaction"} {
		if !strings.Contains(strings.Join(methods, ","), m) {
			t.Errorf("%s never reached a server (saw %v)", m, methods)
		}
	}
}
