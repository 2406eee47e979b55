//go:build smoke

package smoke

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/config"
)

// configEnv names the configuration document the smoke tests use.
const configEnv = "SOLROUTE_SMOKE_CONFIG"

// smokeTimeout bounds each test: the public endpoint's limits may make
// the pool wait.
const smokeTimeout = 2 * time.Minute

// loadConfig loads the document named by SOLROUTE_SMOKE_CONFIG, or skips
// the test. A relative path is tried from this directory, then from the
// repository root (where `go test ./smoke/...` is usually typed).
func loadConfig(t *testing.T) *config.Document {
	t.Helper()
	path := os.Getenv(configEnv)
	if path == "" {
		t.Skipf("%s is not set: smoke tests call real RPC endpoints; set it to a configuration file such as smoke/mainnet-public.toml", configEnv)
	}
	if !filepath.IsAbs(path) {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			path = filepath.Join("..", path)
		}
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// clients builds the pool's typed and solana-go clients, closed with the
// test.
func clients(t *testing.T, cfg *config.Document) (*solroute.Client, *rpc.Client) {
	t.Helper()
	c, err := solroute.FromDocument(cfg, solroute.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, c.RPC()
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), smokeTimeout)
	t.Cleanup(cancel)
	return ctx
}

// semver matches solana-core versions such as "2.2.14".
var semver = regexp.MustCompile(`^\d+\.\d+\.\d+`)

func TestCanaries(t *testing.T) {
	cfg := loadConfig(t)
	mc, _ := clients(t, cfg)
	ctx := testContext(t)

	t.Run("getHealth", func(t *testing.T) {
		if err := mc.GetHealth(ctx); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("getVersion", func(t *testing.T) {
		v, err := mc.GetVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !semver.MatchString(v.SolanaCore) || v.FeatureSet == 0 {
			t.Fatalf("version %+v: want solana-core x.y.z and a feature set", v)
		}
	})
	t.Run("getGenesisHash", func(t *testing.T) {
		h, err := mc.GetGenesisHash(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if h.IsZero() {
			t.Fatal("zero genesis hash")
		}
		want, ok := cfg.ExpectedGenesisHash()
		if !ok {
			t.Skipf("the configuration names no cluster; got genesis hash %s", h)
		}
		if !h.Equals(want) {
			t.Fatalf("genesis hash %s, want %s (cluster %s): an endpoint is on the wrong cluster", h, want, cfg.Cluster)
		}
	})
	t.Run("getBalance", func(t *testing.T) {
		b, err := mc.GetBalance(ctx, solana.SystemProgramID, solroute.BalanceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// The System Program's account holds 1 lamport on every cluster.
		if b.Value == 0 || b.Context.Slot == 0 {
			t.Fatalf("balance %d at slot %d: want a positive balance and slot", b.Value, b.Context.Slot)
		}
	})
}

func TestSolanaGoThroughThePool(t *testing.T) {
	cfg := loadConfig(t)
	_, sol := clients(t, cfg)
	ctx := testContext(t)
	slot, err := sol.GetSlot(ctx, rpc.CommitmentFinalized)
	if err != nil {
		t.Fatal(err)
	}
	if slot == 0 {
		t.Fatal("slot 0")
	}
	bh, err := sol.GetLatestBlockhash(ctx, rpc.CommitmentFinalized)
	if err != nil {
		t.Fatal(err)
	}
	if bh.Value == nil || bh.Value.Blockhash.IsZero() || bh.Value.LastValidBlockHeight == 0 {
		t.Fatalf("latest blockhash %+v", bh.Value)
	}
}
