package confirm

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// Status is what became of a transaction.
type Status uint8

const (
	// Unknown: the context ended before a verdict. Result.Reason says
	// why none was reached, Result.LastErr what the last poll met.
	Unknown Status = iota
	// Landed: found at the requested commitment, and it succeeded.
	Landed
	// Failed: found at the requested commitment, and it failed on chain
	// (Result.Err). Its fee was paid; re-sending it fails the same way.
	Failed
	// Expired: Result.Quorum read endpoints each reported, on their own
	// answers, a finalized block height past its lastValidBlockHeight and
	// did not know the signature (history searched) at a slot at or past
	// that finalized slot, and no endpoint knew it. It can never land;
	// re-signing with a new blockhash is safe.
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

// Result is what solroute.Client.Resolve and SendAndConfirm found.
type Result struct {
	// Signature is the transaction's first signature.
	Signature solana.Signature
	// Status is the verdict.
	Status Status
	// Slot is the slot it landed in (Landed, Failed; and, for Unknown, the
	// slot last seen, 0 when never seen). A verdict brought by a
	// signatureSubscribe notification reads the status for it; when no
	// read endpoint showed it yet, Slot is the one last seen (0 when none)
	// and Confirmation the commitment the notification was for.
	Slot uint64
	// Confirmation is the highest confirmation status seen ("" when never
	// seen).
	Confirmation rpc.ConfirmationStatusType
	// Err is the on-chain error of a Failed transaction, as solana-go
	// decodes it (for example map[string]any{"InstructionError": ...}).
	Err any
	// BlockHeight is the highest finalized block height that Quorum read
	// endpoints have each reported (0 until Quorum have answered): no
	// single endpoint can raise it, and Expired implies it is past
	// LastValidBlockHeight, the one the caller gave. Witnesses holds each
	// endpoint's own.
	BlockHeight, LastValidBlockHeight uint64
	// Quorum is how many read endpoints must vouch for Expired
	// (Options.Quorum, or its default).
	Quorum int
	// Witnesses is what each read endpoint has said about expiry, in
	// configuration order: its own finalized block height, whether it
	// vouched, and why not. A fresh slice at every poll.
	Witnesses []Witness
	// Reason says in a sentence why the status is what it is: for
	// Unknown, how far the chain is from the expiry (no endpoint past
	// LastValidBlockHeight yet) or which endpoints vouched for it and why
	// the others did not; for Expired, which endpoints vouched. "" for
	// Landed and Failed.
	Reason string
	// Polls counts the status polls made; Rebroadcasts the re-sends of the
	// identical signed bytes (Options.Rebroadcast).
	Polls, Rebroadcasts int
	// SendErr is, for SendAndConfirm, the send's error when it left the
	// send ambiguous (errors.Is(SendErr, solroute.ErrAmbiguousDispatch)):
	// resolution then said what happened. Nil when the send was answered.
	SendErr error
	// LastErr is the last error a poll met (every endpoint down, the pool
	// saturated), nil when the last poll was answered. For Unknown it says
	// why nothing was learnt.
	LastErr error
}

// Witness is what one read endpoint has said about a transaction's expiry.
type Witness struct {
	// Endpoint is the endpoint's name.
	Endpoint string
	// Vouched is true once it reported a finalized block height past
	// lastValidBlockHeight and did not know the signature, history
	// searched, in an answer at or past that finalized slot.
	Vouched bool
	// BlockHeight and Slot are its highest finalized block height and the
	// slot it was at (getEpochInfo, one bank); 0 when it never answered.
	BlockHeight, Slot uint64
	// StatusSlot, when Vouched, is the context slot of its "not found".
	StatusSlot uint64
	// Reason says why it has not vouched (its last answer: "finalized
	// block height 1003 ≤ 1004", "unreachable: ...", "status found at
	// slot ..."), "" when it vouched or has not been heard from.
	Reason string
}

// String is one clause for people: "a vouched (finalized block height
// 1010, not found at slot 2100)", "b: finalized block height 1003 ≤
// 1004".
func (w Witness) String() string {
	switch {
	case w.Vouched:
		return fmt.Sprintf("%s vouched (finalized block height %d, not found at slot %d)", w.Endpoint, w.BlockHeight, w.StatusSlot)
	case w.Reason == "":
		return w.Endpoint + ": not heard from yet"
	}
	return w.Endpoint + ": " + w.Reason
}
