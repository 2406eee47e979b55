package engine_test

import (
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/genesis"
)

// TestClusterNameIsGenesisReversed: the genesis hashes live once
// (genesis.Of); the name the guard's messages and the CLI's probe
// give a hash is read back from it, for each public cluster as recorded
// from its getGenesisHash, and "" for any other hash.
func TestClusterNameIsGenesisReversed(t *testing.T) {
	for name, recorded := range map[string]string{
		fixturedata.ClusterMainnetBeta: fixturedata.GenesisMainnetBeta,
		fixturedata.ClusterDevnet:      fixturedata.GenesisDevnet,
		fixturedata.ClusterTestnet:     fixturedata.GenesisTestnet,
	} {
		h, ok := genesis.Of(name)
		if !ok || h.String() != recorded {
			t.Errorf("genesis.Of(%q) = %v, %v; the cluster answers %s", name, h, ok, recorded)
		}
		if got := engine.ClusterName(solana.MustHashFromBase58(recorded)); got != name {
			t.Errorf("ClusterName(%s) = %q, want %q", recorded, got, name)
		}
	}
	if got := engine.ClusterName(solana.Hash{1}); got != "" {
		t.Errorf("ClusterName of no public cluster's hash = %q, want \"\"", got)
	}
}
