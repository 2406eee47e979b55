package endpoint

import "fmt"

// Commitment is a Solana commitment level: which bank of a node answers a
// read. A slot is comparable only with slots of the same commitment (on one
// node, processed ≥ confirmed ≥ finalized, finalized tens of slots behind).
// The zero Commitment is Finalized, the level a node uses when a request
// names none.
type Commitment uint8

const (
	// Finalized: the highest root a supermajority has voted on.
	Finalized Commitment = iota
	// Confirmed: the newest optimistically confirmed bank.
	Confirmed
	// Processed: the newest bank the node has, which may be on a fork.
	Processed
)

// String returns "finalized", "confirmed" or "processed".
func (c Commitment) String() string {
	switch c {
	case Finalized:
		return "finalized"
	case Confirmed:
		return "confirmed"
	case Processed:
		return "processed"
	}
	return fmt.Sprintf("commitment(%d)", uint8(c))
}
