package solroute

import (
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// ErrInvalidInput is matched (errors.Is) by every *InputError.
var ErrInvalidInput = errors.New("solroute: invalid input")

// InputError is an argument rejected before any request was made.
type InputError struct {
	// Field names the argument ("pubkey", "commitment").
	Field string
	// Value is the rejected value, as given.
	Value string
	// Reason says what is wrong.
	Reason string
}

// Error returns "solroute: invalid FIELD "VALUE": REASON".
func (e *InputError) Error() string {
	return fmt.Sprintf("solroute: invalid %s %q: %s", e.Field, e.Value, e.Reason)
}

// Is reports whether target is ErrInvalidInput.
func (e *InputError) Is(target error) bool { return target == ErrInvalidInput }

// ParsePubkey parses a base-58 public key. Any 32 bytes are a valid key
// (the all-zero key is the System Program), so only the encoding and the
// length can be wrong; the error is an *InputError saying which.
func ParsePubkey(s string) (solana.PublicKey, error) {
	if s == "" {
		return solana.PublicKey{}, &InputError{Field: "pubkey", Value: s, Reason: "empty"}
	}
	pk, err := solana.PublicKeyFromBase58(s)
	if err != nil {
		return solana.PublicKey{}, &InputError{Field: "pubkey", Value: s,
			Reason: "not a base-58 encoded 32-byte key: " + err.Error()}
	}
	return pk, nil
}

// validCommitment reports whether c is empty (the node's default) or one of
// the three levels the RPC API accepts.
func validCommitment(c rpc.CommitmentType) error {
	switch c {
	case "", rpc.CommitmentProcessed, rpc.CommitmentConfirmed, rpc.CommitmentFinalized:
		return nil
	}
	return &InputError{Field: "commitment", Value: string(c),
		Reason: "want processed, confirmed or finalized"}
}
