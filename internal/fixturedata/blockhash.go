package fixturedata

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/mr-tron/base58"
)

// MaxProcessingAge is how many blocks a blockhash stays valid, agave's
// MAX_PROCESSING_AGE: getLatestBlockhash's lastValidBlockHeight is the
// block height of the bank it read plus this, and with a Ledger a
// transaction lands only in a block whose height is at most its
// blockhash's height plus this.
const MaxProcessingAge = 150

// blockhashPrefix starts every blockhash BlockhashAt makes; the last 8
// bytes are the height, big-endian, so a blockhash says its own height.
var blockhashPrefix = func() [24]byte {
	sum := sha256.Sum256([]byte("solroute fixtures blockhash"))
	var p [24]byte
	copy(p[:], sum[:])
	return p
}()

// BlockhashAt returns the blockhash of the block at a height, as a server
// with a Ledger answers it in getLatestBlockhash (base 58): a fixed
// 24-byte prefix followed by the height, except at RecordedBlockHeight,
// whose blockhash is RecordedBlockhash (so fixtures.SignedTransaction's
// transactions are built on the block at that height). A test signs a
// transaction with it (fixtures.SignedTransaction) without asking a server.
func BlockhashAt(height uint64) string {
	if height == RecordedBlockHeight {
		return RecordedBlockhash
	}
	var h [32]byte
	copy(h[:], blockhashPrefix[:])
	binary.BigEndian.PutUint64(h[24:], height)
	return base58.Encode(h[:])
}

// BlockhashHeight returns the height of a blockhash BlockhashAt made; ok
// is false for any other blockhash.
func BlockhashHeight(hash string) (height uint64, ok bool) {
	if hash == RecordedBlockhash {
		return RecordedBlockHeight, true
	}
	b, err := base58.Decode(hash)
	if err != nil || len(b) != 32 || [24]byte(b[:24]) != blockhashPrefix {
		return 0, false
	}
	height = binary.BigEndian.Uint64(b[24:])
	return height, height != RecordedBlockHeight // that height's hash is RecordedBlockhash
}
