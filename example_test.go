package solroute_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
)

// The README's quick start: open a document, use solana-go's client over
// the pool, and tell an ambiguous send from a plain failure.
func Example() {
	// Stand-ins for a provider and for the operator's rpc.toml.
	provider := fixtures.NewServer(fixtures.Options{Name: "provider"})
	defer provider.Close()
	dir, _ := os.MkdirTemp("", "solroute-quickstart")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "rpc.toml"), []byte(`cluster = "mainnet-beta"
[[endpoints]]
name = "primary-a"
url = "${PROVIDER_URL}"
  [endpoints.roles.read]
  requests_per_second = 50
  request_timeout = "5s"
`), 0o600)
	os.Setenv("PROVIDER_URL", provider.URL())
	defer os.Unsetenv("PROVIDER_URL")
	path := filepath.Join(dir, "rpc.toml")

	c, err := solroute.Open(path) // docs/config.md
	if err != nil {
		log.Fatal(err) // every problem, with file, line and key path; never a URL
	}
	defer c.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	slot, err := c.RPC().GetSlot(ctx, rpc.CommitmentConfirmed) // any solana-go method, through the pool
	if errors.Is(err, solroute.ErrAmbiguousDispatch) {
		log.Print("a send may have landed: check before sending again")
	} else if err != nil {
		log.Printf("getSlot failed: %+v", err) // every attempt: endpoint, cause, decision
	}
	fmt.Println(slot == fixturedata.RecordedSlot)
	// Output: true
}

// Three endpoints in two tiers, in plain Go: two providers share the
// reads and the sends, a public endpoint backs up the reads.
func ExampleNew() {
	a, b, public := fakeEndpoint("a"), fakeEndpoint("b"), fakeEndpoint("public")
	defer a.Close()
	defer b.Close()
	defer public.Close()

	c, err := solroute.New(solroute.Options{Endpoints: []solroute.Endpoint{
		{Name: "provider-a", URL: a.URL(), Read: &endpoint.Limits{RequestsPerSecond: 50}, Send: &endpoint.Limits{RequestsPerSecond: 5}},
		{Name: "provider-b", URL: b.URL(), Read: &endpoint.Limits{RequestsPerSecond: 25}, Send: &endpoint.Limits{}},
		{Name: "public", URL: public.URL(), Tier: 1, Read: &endpoint.Limits{RequestsPerSecond: 4, MaxConcurrentRequests: 4}},
	}})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	fmt.Println(c.GetHealth(context.Background()))
	v, _ := c.GetVersion(context.Background())
	fmt.Println(v.SolanaCore)
	// Output:
	// <nil>
	// 2.2.14
}

// fakeEndpoint is a fake Solana RPC endpoint on loopback.
func fakeEndpoint(name string) *fixtures.Server {
	return fixtures.NewServer(fixtures.Options{Name: name})
}

// Reads that never go back in time, per worker: a Session is a
// high-water mark of the slots its reads returned. One of the three
// endpoints is 100 slots behind; its answers never reach the worker once
// the others have answered, and the snapshot shows how far it lags.
func ExampleWithSession() {
	clock := clockwork.NewFakeClock() // the fake endpoints' slots advance on it
	members := []fixtures.Member{{Name: "a"}, {Name: "b"}, {Name: "behind"}}
	for i := range members {
		members[i].Options = fixtures.Options{Clock: clock, Slots: &fixtures.SlotOptions{}}
		members[i].Read = &endpoint.Limits{} // reads only
	}
	members[2].Options.Slots.Lag = 100
	cluster := fixtures.NewCluster(members)
	defer cluster.Close()
	c, err := solroute.New(solroute.Options{Endpoints: cluster.Endpoints()})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	worker := solroute.WithSession(context.Background(), new(solroute.Session))
	var last uint64
	backwards := 0
	for range 12 {
		out, err := c.RPC().GetBalance(worker, solana.MustPublicKeyFromBase58(fixturedata.RecordedTokenOwner), rpc.CommitmentConfirmed)
		if err != nil {
			log.Fatal(err)
		}
		if out.Context.Slot < last {
			backwards++
		}
		last = out.Context.Slot
	}
	fmt.Println("reads that went back in time:", backwards)
	for _, s := range c.Snapshot() {
		if s.Name == "behind" {
			fmt.Println(s.Name, s.SlotStanding, s.SlotLag)
		}
	}
	// Output:
	// reads that went back in time: 0
	// behind lagging 100
}

// Which endpoints one call tried, and why each attempt stopped: the first
// provider answers 503, the call fails over to the backup and succeeds,
// and the record shows both attempts.
func ExampleCallRecord() {
	primary, backup := fakeEndpoint("primary"), fakeEndpoint("backup")
	defer primary.Close()
	defer backup.Close()
	primary.SetFault(fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 503})
	c, err := solroute.New(solroute.Options{Endpoints: []solroute.Endpoint{
		{Name: "primary", URL: primary.URL(), Read: &endpoint.Limits{}},
		{Name: "backup", URL: backup.URL(), Tier: 1, Read: &endpoint.Limits{}},
	}})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	var rec solroute.CallRecord
	ctx := solroute.WithObserver(context.Background(), &rec)
	if _, err := c.RPC().GetSlot(ctx, rpc.CommitmentConfirmed); err != nil {
		log.Fatal(err)
	}
	for _, a := range rec.Attempts() {
		fmt.Println(a.Endpoint, a.HTTPStatus, a.Dispatch, a.Decision.Rule)
	}
	// Output:
	// primary 503 answered retry
	// backup 200 answered none
}
