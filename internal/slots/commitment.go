package slots

import (
	"fmt"

	"github.com/gagliardetto/solana-go/rpc"
)

// Commitment is a Solana commitment level in the compact form the
// machinery indexes arrays with: which bank of a node answers a read. A
// slot is comparable only with slots of the same commitment (on one node,
// processed ≥ confirmed ≥ finalized, finalized tens of slots behind). The
// zero Commitment is Finalized, the level a node uses when a request names
// none. Users name a commitment as solana-go's rpc.CommitmentType; the
// faces convert with Type and ParseCommitment.
type Commitment uint8

const (
	// Finalized: the highest root a supermajority has voted on.
	Finalized Commitment = iota
	// Confirmed: the newest optimistically confirmed bank.
	Confirmed
	// Processed: the newest bank the node has, which may be on a fork.
	Processed
)

// Commitments is the number of commitment levels, for arrays indexed by
// Commitment.
const Commitments = 3

// String returns "finalized", "confirmed" or "processed".
func (c Commitment) String() string {
	if t := c.Type(); t != "" {
		return string(t)
	}
	return fmt.Sprintf("commitment(%d)", uint8(c))
}

// Type is c as users name it: rpc.CommitmentFinalized, Confirmed or
// Processed ("" for a value out of range).
func (c Commitment) Type() rpc.CommitmentType {
	switch c {
	case Finalized:
		return rpc.CommitmentFinalized
	case Confirmed:
		return rpc.CommitmentConfirmed
	case Processed:
		return rpc.CommitmentProcessed
	}
	return ""
}

// ParseCommitment reads a request's commitment name. The deprecated names
// agave still accepts map to their levels ("max" and "root" to finalized,
// "singleGossip" to confirmed, "recent" and "single" to processed); "" is
// finalized. ok is false for anything else.
func ParseCommitment(s string) (c Commitment, ok bool) {
	switch s {
	case "", "finalized", "max", "root":
		return Finalized, true
	case "confirmed", "singleGossip":
		return Confirmed, true
	case "processed", "recent", "single":
		return Processed, true
	}
	return Finalized, false
}
