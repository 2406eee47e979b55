package solroute

import (
	"encoding/json"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"
)

// TestBalanceConfigAppendsAsMarshal: getBalance's config object writes
// itself byte for byte as json.Marshal writes it, for every commitment
// GetBalance accepts, with and without a minimum context slot.
func TestBalanceConfigAppendsAsMarshal(t *testing.T) {
	zero, big := uint64(0), ^uint64(0)
	for _, c := range []rpc.CommitmentType{"", rpc.CommitmentProcessed, rpc.CommitmentConfirmed, rpc.CommitmentFinalized} {
		for _, m := range []*uint64{nil, &zero, &big} {
			cfg := balanceConfig{Commitment: c, MinContextSlot: m}
			want, err := json.Marshal(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.AppendJSON([]byte("x")); string(got) != "x"+string(want) {
				t.Errorf("%+v: got %s, want %s", cfg, got[1:], want)
			}
		}
	}
}
