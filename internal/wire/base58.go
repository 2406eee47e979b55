package wire

import "github.com/gagliardetto/solana-go"

// base58Alphabet is Bitcoin's, which Solana's public keys use.
const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// appendBase58 appends k in base58 followed by a closing quote: the text
// of k.String(), without its two allocations.
func appendBase58(b []byte, k solana.PublicKey) []byte {
	// 32 bytes are at most 44 base58 digits, held little-endian here.
	var digits [44]byte
	n := 0
	for _, c := range k {
		carry := int(c)
		for j := 0; j < n; j++ {
			carry += int(digits[j]) << 8
			digits[j] = byte(carry % 58)
			carry /= 58
		}
		for carry > 0 {
			digits[n] = byte(carry % 58)
			n++
			carry /= 58
		}
	}
	// Each leading zero byte is a leading '1'.
	for _, c := range k {
		if c != 0 {
			break
		}
		b = append(b, '1')
	}
	for j := n - 1; j >= 0; j-- {
		b = append(b, base58Alphabet[digits[j]])
	}
	return append(b, '"')
}
