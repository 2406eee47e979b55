package confirm

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// Status is what became of a transaction.
type Status uint8

const (
	// Unknown: the context ended before an answer. Result.Last says what
	// was last seen.
	Unknown Status = iota
	// Landed: found at the requested commitment, and it succeeded.
	Landed
	// Failed: found at the requested commitment, and it failed on chain
	// (Result.Err). Its fee was paid; re-sending it fails the same way.
	Failed
	// Expired: its blockhash expired and no endpoint that is not behind
	// knows it. It can never land; re-signing with a new blockhash is
	// safe.
	Expired
)

// String returns "unknown", "landed", "failed" or "expired".
func (s Status) String() string {
	switch s {
	case Unknown:
		return "unknown"
	case Landed:
		return "landed"
	case Failed:
		return "failed"
	case Expired:
		return "expired"
	}
	return fmt.Sprintf("status(%d)", uint8(s))
}

// Result is what Resolve and SendAndConfirm found.
type Result struct {
	// Signature is the transaction's first signature.
	Signature solana.Signature
	// Status is the verdict.
	Status Status
	// Slot is the slot it landed in (Landed, Failed; and, for Unknown, the
	// slot last seen, 0 when never seen).
	Slot uint64
	// Confirmation is the highest confirmation status seen ("" when never
	// seen).
	Confirmation rpc.ConfirmationStatusType
	// Err is the on-chain error of a Failed transaction, as solana-go
	// decodes it (for example map[string]any{"InstructionError": ...}).
	Err any
	// BlockHeight is the highest finalized block height seen, and
	// LastValidBlockHeight the one the caller gave.
	BlockHeight, LastValidBlockHeight uint64
	// Polls counts the status polls made; Rebroadcasts the re-sends of the
	// identical signed bytes (Options.Rebroadcast).
	Polls, Rebroadcasts int
	// SendErr is, for SendAndConfirm, the send's error when it left the
	// send ambiguous (errors.Is(SendErr, transport.ErrAmbiguousDispatch)):
	// resolution then said what happened. Nil when the send was answered.
	SendErr error
	// LastErr is the last error a poll met (every endpoint down, the pool
	// saturated), nil when the last poll was answered. For Unknown it says
	// why nothing was learnt.
	LastErr error
}
