package confirm

import (
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// Options tune solroute.Client.Resolve and SendAndConfirm. The zero value
// is valid.
type Options struct {
	// Commitment is the commitment a transaction must reach to count as
	// landed: processed, confirmed or finalized. "" means confirmed.
	Commitment rpc.CommitmentType
	// PollInterval is the time between two polls. 0 means one slot,
	// 400 ms.
	PollInterval time.Duration
	// Rebroadcast, for SendAndConfirm, re-sends the identical signed bytes
	// every Rebroadcast while the transaction is not found at confirmed or
	// better and its blockhash may be valid: until Quorum endpoints have
	// each reported a finalized block height past lastValidBlockHeight
	// (Result.BlockHeight; see the package doc), or, for a durable-nonce
	// transaction, its nonce moved on. 0 (the default) never re-sends.
	Rebroadcast time.Duration
	// SkipPreflight and PreflightCommitment are sendTransaction's
	// skipPreflight and preflightCommitment for the first send ("": the
	// node's default, finalized). Rebroadcasts always skip preflight (a
	// landed transaction fails it as already processed).
	SkipPreflight       bool
	PreflightCommitment rpc.CommitmentType
	// MaxRetries is sendTransaction's maxRetries, the node's own
	// rebroadcasting; nil leaves the node's default.
	MaxRetries *uint
	// Quorum is how many distinct read endpoints must each vouch, on
	// their own answers, that the transaction expired (a finalized block
	// height past lastValidBlockHeight, or for a durable-nonce transaction
	// its nonce account holding another nonce at a finalized slot after
	// one where it held the transaction's; and the signature not found
	// with history search in an answer at least 32 slots past that
	// finalized slot, a root's depth) before
	// Expired is concluded. 0 means 2, or 1 when the pool has one read
	// endpoint. 1 takes one endpoint's word: a node that lies about its
	// height, or a cache or proxy in front of a node that missed the
	// transaction, then makes a transaction that can still land look
	// expired, and whoever re-signs on that verdict pays twice. More than
	// the pool's read endpoints is an error: Expired could never be
	// concluded. Endpoints of one provider (endpoint.Spec.Provider) may
	// share a backend, so they count as one endpoint here, in the default
	// and the bound alike (two URLs of one provider are one vouch), unless
	// every read endpoint is one provider's: such a pool counts its URLs,
	// as if no provider were named, so that naming one never lowers the
	// bar.
	Quorum int
	// PollOnly confirms by polling alone. By default, when the client has
	// a subscribe endpoint, the signature is also watched
	// (signatureSubscribe at Commitment, subscribed before the send and
	// waited for at most half a second): its notification brings the
	// verdict forward, and polling stays the fallback and the only judge
	// of expiry. Set it to spare the subscription: each confirmation holds
	// one on the subscribe role's Redundancy endpoints, against their
	// per-connection caps, and costs one getSignatureStatuses more.
	PollOnly bool
	// FanOut, for SendAndConfirm, sends the same signed bytes to this
	// many distinct send endpoints at once, each copy pinned to its
	// endpoint (its limits, cooldown and doubt, and the rule that a send
	// is never resent once a server may have acted, apply per copy): best
	// tier first among the endpoints that can take a copy now, then the
	// rest; a copy refused before dispatch goes to the next endpoint not
	// yet given one. With Rebroadcast, every rebroadcast goes to the same
	// endpoints, each skipped while it cannot take a copy at once. The
	// chain keeps one transaction per signature: the copies land it once
	// at most. Result.Copies says what each endpoint did. 0 means 1, or,
	// through solroute.Client, the document's [send] fan_out; 1 is one
	// send through the pool, as without it. More than the pool's send
	// endpoints is an error before any request.
	FanOut int
	// NonceAccount and Nonce mark a durable-nonce transaction: its first
	// instruction advances the nonce account NonceAccount, and its recent
	// blockhash is the durable nonce Nonce that account held when it was
	// signed. Such a transaction has no lastValidBlockHeight (pass 0): it
	// can land until the account's nonce moves on, however many blocks
	// pass, and is Expired only once Quorum endpoints have each seen that
	// happen at finalized commitment without the signature. Resolve needs
	// them for one; SendAndConfirm reads them from the transaction (set,
	// they must agree with it; NonceAccount must be set when the message
	// loads the account from an address lookup table). Both zero: a
	// transaction on a recent blockhash.
	NonceAccount solana.PublicKey
	Nonce        solana.Hash
	// OnPoll, when set, is called after every poll with the result so
	// far, from the resolving goroutine, before it waits for the next: for
	// progress logs. It must not block for long.
	OnPoll func(Result)
}
