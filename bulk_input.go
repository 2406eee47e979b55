package solroute

import (
	"strconv"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// Each method's limit of inputs per request (agave's rpc.rs).
const (
	// maxAccountsChunk is MAX_MULTIPLE_ACCOUNTS.
	maxAccountsChunk = 100
	// maxStatusesChunk is MAX_GET_SIGNATURE_STATUSES_QUERY_ITEMS.
	maxStatusesChunk = 256
)

// shape checks the options every bulk read shares and returns the chunk
// size and the cap: ChunkSize within 0..limit (0: limit), InFlight not
// negative (0: adaptive, left 0), a known commitment.
func (o BulkOptions) shape(method string, limit int) (size, inflight int, err error) {
	if err := validCommitment(o.Commitment); err != nil {
		return 0, 0, err
	}
	size, inflight = o.ChunkSize, o.InFlight
	if size < 0 || size > limit {
		return 0, 0, &InputError{Field: "chunk size", Value: strconv.Itoa(size),
			Reason: method + " takes 1 to " + strconv.Itoa(limit) + " inputs a request"}
	}
	if inflight < 0 {
		return 0, 0, &InputError{Field: "in-flight cap", Value: strconv.Itoa(inflight),
			Reason: "want 0 (adaptive: follows the pool) or more"}
	}
	if size == 0 {
		size = limit
	}
	return size, inflight, nil
}

// encoding checks o.Encoding against the encodings method answers in a
// form solana-go decodes, and returns it ("" is base64).
func (o BulkOptions) encoding(method string, known ...solana.EncodingType) (solana.EncodingType, error) {
	if o.Encoding == "" {
		return solana.EncodingBase64, nil
	}
	for _, k := range known {
		if o.Encoding == k {
			return k, nil
		}
	}
	reason := "want "
	for i, k := range known {
		if i > 0 {
			reason += ", "
		}
		reason += string(k)
	}
	return "", &InputError{Field: "encoding", Value: string(o.Encoding), Reason: reason + " for " + method}
}

// noZeroKey refuses the zero key, an unset element (what "a nil key" is
// for a value type): nobody bulk-reads the System Program's account, and
// a slice made with make([]solana.PublicKey, n) and filled short reads
// n-m copies of it without a word.
func noZeroKey(keys []solana.PublicKey) error {
	for i, k := range keys {
		if k.IsZero() {
			return &InputError{Field: "keys[" + strconv.Itoa(i) + "]", Value: k.String(),
				Reason: "the zero key, an unset element (read the System Program with GetAccountInfo)"}
		}
	}
	return nil
}

// noZeroSignature refuses the zero signature: no transaction has it, so
// it is an unset element.
func noZeroSignature(sigs []solana.Signature) error {
	for i, s := range sigs {
		if s.IsZero() {
			return &InputError{Field: "signatures[" + strconv.Itoa(i) + "]", Value: s.String(),
				Reason: "the zero signature, an unset element"}
		}
	}
	return nil
}

// historyCommitment refuses processed for getTransaction (agave: "Method
// does not support commitment below `confirmed`", -32602).
func historyCommitment(c rpc.CommitmentType) error {
	if c == rpc.CommitmentProcessed {
		return &InputError{Field: "commitment", Value: string(c),
			Reason: "getTransaction takes confirmed or finalized"}
	}
	return nil
}
