package wire

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// base58Alphabet is Bitcoin's, which Solana's public keys use.
const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// limbBase is 58⁵, the base of appendBase58's limbs: a limb shifted left
// by 32 bits still fits in a uint64, so the bytes are taken 4 at a time.
const limbBase = 58 * 58 * 58 * 58 * 58

// maxBase58Bytes is the longest value appendBase58 writes: a signature.
// 2⁵¹² < 58⁹⁰: eighteen limbs of five digits.
const (
	maxBase58Bytes = 64
	maxLimbs       = 18
)

// appendBase58 appends k in base58 followed by a closing quote: the text
// of k.String(), without its two allocations.
func appendBase58(b []byte, k solana.PublicKey) []byte { return appendBase58Bytes(b, k[:]) }

// appendBase58Bytes appends src (a multiple of 4 bytes, at most
// maxBase58Bytes: a public key or a signature) in base58 followed by a
// closing quote, as base58.Encode writes it: each leading zero byte a
// leading '1'.
func appendBase58Bytes(b []byte, src []byte) []byte {
	var limbs [maxLimbs]uint64 // least significant first
	n := 0
	for i := 0; i+4 <= len(src); i += 4 {
		carry := uint64(binary.BigEndian.Uint32(src[i:]))
		for j := 0; j < n; j++ {
			carry += limbs[j] << 32
			limbs[j] = carry % limbBase
			carry /= limbBase
		}
		for carry > 0 {
			limbs[n] = carry % limbBase
			n++
			carry /= limbBase
		}
	}
	var digits [5 * maxLimbs]byte // most significant first
	const last = 5*maxLimbs - 1
	for j := 0; j < n; j++ {
		v := limbs[j]
		for d := range 5 {
			digits[last-5*j-d] = byte(v % 58)
			v /= 58
		}
	}
	first := 5*maxLimbs - 5*n
	for first < len(digits) && digits[first] == 0 {
		first++
	}
	for _, c := range src {
		if c != 0 {
			break
		}
		b = append(b, '1')
	}
	for _, d := range digits[first:] {
		b = append(b, base58Alphabet[d])
	}
	return append(b, '"')
}
