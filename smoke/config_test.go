package smoke

import (
	"testing"

	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/internal/fixturedata"
)

// TestMainnetPublicConfigLoads runs without the smoke tag and without the
// network: the example document stays valid.
func TestMainnetPublicConfigLoads(t *testing.T) {
	cfg, err := config.Load("mainnet-public.toml")
	if err != nil {
		t.Fatal(err)
	}
	if want, ok := cfg.ExpectedGenesisHash(); !ok || want.String() != fixturedata.GenesisMainnetBeta {
		t.Fatalf("cluster %q, want mainnet-beta", cfg.Cluster)
	}
	if len(cfg.Endpoints) != 1 {
		t.Fatalf("%d endpoints, want 1", len(cfg.Endpoints))
	}
	for role, l := range cfg.Endpoints[0].Roles {
		// 100 requests per 10 s per IP: burst + 10 s of refill must stay
		// below it, and concurrency well below 40 connections.
		if l.RequestsPerSecond <= 0 || float64(l.BurstCapacity)+10*l.RequestsPerSecond > 100 || l.MaxConcurrentRequests > 40 {
			t.Errorf("role %s: limits %+v exceed the public endpoint's", role, l)
		}
	}
}
