package config_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/transport"
)

// The README's quick start: load a document, get a solana-go client whose
// every call runs through the pool, and read a failure as a *CallError.
func Example_quickStart() {
	// Stand-ins for a provider and for the operator's rpc.toml.
	provider := fixtures.NewServer(fixtures.Options{Name: "provider"})
	defer provider.Close()
	dir, _ := os.MkdirTemp("", "solroute-quickstart")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "rpc.toml")
	_ = os.WriteFile(path, []byte(`cluster = "mainnet-beta"
[[endpoints]]
name = "primary-a"
url = "${PROVIDER_URL}"
  [endpoints.roles.read]
  requests_per_second = 50
  request_timeout = "5s"
`), 0o600)
	os.Setenv("PROVIDER_URL", provider.URL())
	defer os.Unsetenv("PROVIDER_URL")

	cfg, err := config.Load(path) // see config/examples/
	if err != nil {
		log.Fatal(err) // every problem, with file, line and key path; never a URL
	}
	client, tc, err := config.NewSolanaClient(cfg, config.ClientOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer tc.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	slot, err := client.GetSlot(ctx, rpc.CommitmentConfirmed) // any solana-go method, through the pool
	var callErr *transport.CallError
	if errors.As(err, &callErr) {
		log.Printf("getSlot failed: %v", callErr) // names endpoints, attempts, causes and decisions
	}
	fmt.Println(slot == fixtures.RecordedSlot)
	// Output: true
}
