package fixturedata

import (
	"encoding/binary"
	"testing"

	"github.com/gagliardetto/solana-go"
)

func TestBlockhashAt(t *testing.T) {
	seen := map[string]uint64{}
	for _, h := range []uint64{0, 1, 150, RecordedBlockHeight - 1, RecordedBlockHeight, RecordedBlockHeight + 1, 1 << 40} {
		hash := BlockhashAt(h)
		if BlockhashAt(h) != hash {
			t.Errorf("height %d: not deterministic", h)
		}
		if _, err := solana.HashFromBase58(hash); err != nil {
			t.Errorf("height %d: %q is not a hash: %v", h, hash, err)
		}
		if other, dup := seen[hash]; dup {
			t.Errorf("heights %d and %d share %s", other, h, hash)
		}
		seen[hash] = h
		if got, ok := BlockhashHeight(hash); !ok || got != h {
			t.Errorf("height %d: BlockhashHeight(%s) = %d, %v", h, hash, got, ok)
		}
	}
	if BlockhashAt(RecordedBlockHeight) != RecordedBlockhash {
		t.Errorf("the recorded height's blockhash is %s", BlockhashAt(RecordedBlockHeight))
	}
	// The prefix form of the recorded height is not a blockhash of the
	// chain: that height's blockhash is the recorded one.
	var prefixed solana.Hash
	copy(prefixed[:], blockhashPrefix[:])
	binary.BigEndian.PutUint64(prefixed[24:], RecordedBlockHeight)
	for _, hash := range []string{prefixed.String(), "", "x", solana.Hash{}.String(), solana.Hash{1}.String(), "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1"} {
		if h, ok := BlockhashHeight(hash); ok {
			t.Errorf("%q read as height %d", hash, h)
		}
	}
}
