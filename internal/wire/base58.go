package wire

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// base58Alphabet is Bitcoin's, which Solana's public keys use.
const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// limbBase is 58⁵, the base of appendBase58's limbs: a limb shifted left
// by 32 bits still fits in a uint64, so the key is taken 4 bytes at a time.
const limbBase = 58 * 58 * 58 * 58 * 58

// appendBase58 appends k in base58 followed by a closing quote: the text
// of k.String(), without its two allocations.
func appendBase58(b []byte, k solana.PublicKey) []byte {
	// 2²⁵⁶ < 58⁴⁵: nine limbs of five digits, least significant first.
	var limbs [9]uint64
	n := 0
	for i := 0; i < len(k); i += 4 {
		carry := uint64(binary.BigEndian.Uint32(k[i:]))
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
	var digits [45]byte // most significant first
	for j := 0; j < n; j++ {
		v := limbs[j]
		for d := range 5 {
			digits[44-5*j-d] = byte(v % 58)
			v /= 58
		}
	}
	first := 45 - 5*n
	for first < 45 && digits[first] == 0 {
		first++
	}
	// Each leading zero byte is a leading '1'.
	for _, c := range k {
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
