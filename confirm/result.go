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
	// did not know the signature (history searched) in an answer at least
	// 32 slots past that finalized slot, and no endpoint knew it. It can
	// never land; re-signing with a new blockhash is safe. For a
	// durable-nonce transaction, each reported its nonce account holding
	// another nonce (or none) at a finalized slot after one at which it
	// reported the account holding the transaction's, and did not know the
	// signature 32 slots past that slot: the nonce moved on without it, so
	// it can never land.
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
	// (Options.Quorum, or its default), endpoints of one Provider counted
	// as one (but for a pool of one provider's: Options.Quorum).
	Quorum int
	// Vouched is how many have vouched so far, counted as Quorum is.
	Vouched int
	// NonceAccount and Nonce are, for a durable-nonce transaction, its
	// nonce account and the nonce it carries (Options.NonceAccount and
	// Nonce, or read from the transaction by SendAndConfirm); zero for
	// others. LastValidBlockHeight and BlockHeight are then 0.
	NonceAccount solana.PublicKey
	Nonce        solana.Hash
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
	// Copies is, for a fan-out (Options.FanOut above 1), what each send
	// endpoint given a copy did with it, in the order they were first
	// given one; nil without one. FirstAccepted names the endpoint that
	// accepted a copy first: which copy landed cannot be told (every copy
	// is the same transaction), so this is the fastest route to a leader
	// that accepted, not proof of the one that landed it.
	Copies        []Copy
	FirstAccepted string
	// LastErr is the last error a poll met (every endpoint down, the pool
	// saturated), nil when the last poll was answered. For Unknown it says
	// why nothing was learnt.
	LastErr error
}

// Copy is what one send endpoint did with the copies of a fanned-out
// transaction it was given (Options.FanOut, solroute.Client.SendToMany).
type Copy struct {
	// Endpoint is the endpoint's name.
	Endpoint string
	// Sent counts the copies sent to it (the first and each rebroadcast
	// it could take), Accepted those it answered with the signature (or
	// that it was already processed), Refused those it refused with proof
	// that it did not act on them (a 429, a preflight error: nothing
	// reached the chain through it). The others, Sent - Accepted -
	// Refused, are ambiguous: it may have forwarded them, and the
	// transport never sent them again. Skipped counts the copies not
	// sent because it could not take one at once (cooling down after a
	// rate limit, out of tokens, at its concurrency cap, in doubt): a
	// fan-out never waits for one endpoint.
	Sent, Accepted, Refused, Skipped int
	// Err is the last error a copy met there; nil when none did. An
	// ambiguous one matches solroute.ErrAmbiguousDispatch.
	Err error
}

// Witness is what one read endpoint has said about a transaction's expiry.
type Witness struct {
	// Endpoint is the endpoint's name.
	Endpoint string
	// Provider is the endpoint's provider (endpoint.Spec.Provider); ""
	// when it shares nodes with no other. The endpoints of one provider
	// are one witness: their vouches count once toward Result.Quorum.
	Provider string
	// Vouched is true once it reported a finalized block height past
	// lastValidBlockHeight (for a durable-nonce transaction: its nonce
	// moved on, NonceMovedAt) and did not know the signature, history
	// searched, in an answer at least 32 slots past that finalized slot.
	Vouched bool
	// BlockHeight and Slot are its highest finalized block height and the
	// slot it was at (getEpochInfo, one bank); 0 when it never answered.
	BlockHeight, Slot uint64
	// StatusSlot, when Vouched, is the context slot of its "not found".
	StatusSlot uint64
	// NonceHeldAt and NonceMovedAt are, for a durable-nonce transaction,
	// the finalized slot at which it last reported the nonce account
	// holding the transaction's nonce, and the one after that at which it
	// reported the account holding another (or none); 0 when not yet.
	// Slot is then the finalized slot of its last answer, and BlockHeight
	// 0.
	NonceHeldAt, NonceMovedAt uint64
	// Reason says why it has not vouched (its last answer: "finalized
	// block height 1003 ≤ 1004", "unreachable: ...", "status found at
	// slot ..."), "" when it vouched or has not been heard from.
	Reason string
}

// String is one clause for people: "a vouched (finalized block height
// 1010, not found at slot 2100)", "b: finalized block height 1003 ≤
// 1004", "c of helius: not heard from yet".
func (w Witness) String() string {
	switch {
	case w.Provider != "":
		w.Endpoint, w.Provider = w.Endpoint+" of "+w.Provider, ""
		return w.String()
	case w.Vouched && w.NonceMovedAt > 0:
		return fmt.Sprintf("%s vouched (nonce held at finalized slot %d, moved on by %d, not found at slot %d)", w.Endpoint, w.NonceHeldAt, w.NonceMovedAt, w.StatusSlot)
	case w.Vouched:
		return fmt.Sprintf("%s vouched (finalized block height %d, not found at slot %d)", w.Endpoint, w.BlockHeight, w.StatusSlot)
	case w.Reason == "":
		return w.Endpoint + ": not heard from yet"
	}
	return w.Endpoint + ": " + w.Reason
}
