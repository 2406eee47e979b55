// Package bundles holds what a Jito-style bundle is on the wire: the
// checks a bundle passes before any request (Check), its id (ID), and
// the status read the resolver uses (Statuses). The root's SendBundle
// and the confirm/resolve packages call it; it knows no pool.
package bundles

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/gagliardetto/solana-go"
)

// Capability is the capability an endpoint serving the bundle methods
// carries (a block engine, a provider's RPC that proxies them), and that
// every bundle call requires.
const Capability = "bundles"

// MaxTransactions is the most transactions a bundle holds (Jito).
const MaxTransactions = 5

// maxTransactionBytes is the most bytes one serialized transaction may
// take: a packet's data (agave's PACKET_DATA_SIZE, 1280 - 48).
const maxTransactionBytes = 1232

// Problem is a bundle refused before any request: which argument, the
// value as given (never a secret: an index or a signature) and why.
type Problem struct {
	Field, Value, Reason string
}

func (p *Problem) Error() string {
	return fmt.Sprintf("bundles: invalid %s %q: %s", p.Field, p.Value, p.Reason)
}

// Check returns the bundle's transactions encoded in base64 and their
// first signatures (base 58), or the first Problem: 1 to 5 transactions,
// none nil, each fully signed (every required signature present and
// valid over the message), serializable and at most 1232 bytes, no two
// with one first signature.
func Check(txs []*solana.Transaction) (encoded, sigs []string, err error) {
	switch {
	case len(txs) == 0:
		return nil, nil, &Problem{"txs", "0", "a bundle needs at least 1 transaction"}
	case len(txs) > MaxTransactions:
		return nil, nil, &Problem{"txs", fmt.Sprint(len(txs)), fmt.Sprintf("a bundle holds at most %d transactions", MaxTransactions)}
	}
	seen := make(map[solana.Signature]int, len(txs))
	for i, tx := range txs {
		field := fmt.Sprintf("txs[%d]", i)
		raw, problem := signedBytes(tx)
		if problem != "" {
			return nil, nil, &Problem{field, fmt.Sprint(i), problem}
		}
		sig := tx.Signatures[0]
		if j, dup := seen[sig]; dup {
			return nil, nil, &Problem{field, sig.String(), fmt.Sprintf("repeats the signature of txs[%d]: a bundle's transactions are distinct", j)}
		}
		seen[sig] = i
		encoded = append(encoded, base64.StdEncoding.EncodeToString(raw))
		sigs = append(sigs, sig.String())
	}
	return encoded, sigs, nil
}

// signedBytes serializes tx after checking it is fully signed; problem
// says what is wrong ("": nothing).
func signedBytes(tx *solana.Transaction) ([]byte, string) {
	if tx == nil {
		return nil, "is nil"
	}
	need := int(tx.Message.Header.NumRequiredSignatures)
	if need == 0 || len(tx.Signatures) != need {
		return nil, fmt.Sprintf("has %d signatures, its message requires %d: sign it first", len(tx.Signatures), need)
	}
	for _, s := range tx.Signatures {
		if s.IsZero() {
			return nil, "is not signed: a required signature is empty"
		}
	}
	if err := tx.VerifySignatures(); err != nil {
		return nil, "has a signature that does not verify over its message"
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return nil, "does not serialize"
	}
	if len(raw) > maxTransactionBytes {
		return nil, fmt.Sprintf("is %d bytes, over the %d a transaction may take", len(raw), maxTransactionBytes)
	}
	return raw, ""
}

// ID is a bundle's id as a block engine derives it: the lower-case hex
// SHA-256 of the first signatures (base 58) joined by "," (jito-solana's
// derive_bundle_id).
func ID(sigs []string) string {
	h := sha256.Sum256([]byte(strings.Join(sigs, ",")))
	return hex.EncodeToString(h[:])
}
