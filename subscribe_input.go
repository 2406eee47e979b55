package solroute

import (
	"fmt"
	"strconv"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/internal/pubsub"
)

// AccountSubscribeOptions tune an account subscription. Nil, or a zero
// field, means the default.
type AccountSubscribeOptions struct {
	// Commitment is the bank the notifications come from; "" means
	// finalized.
	Commitment rpc.CommitmentType
	// Encoding is the account data's: base58, base64, base64+zstd or
	// jsonParsed; "" means base64.
	Encoding solana.EncodingType
}

// ProgramSubscribeOptions tune a program subscription. Nil, or a zero
// field, means the default.
type ProgramSubscribeOptions struct {
	// Commitment is the bank the notifications come from; "" means
	// finalized.
	Commitment rpc.CommitmentType
	// Encoding is the account data's: base58, base64, base64+zstd or
	// jsonParsed; "" means base64.
	Encoding solana.EncodingType
	// Filters pick the accounts, as getProgramAccounts's do: up to 4,
	// each a DataSize or a Memcmp (of 1 to 128 bytes). Nil means every
	// account the program owns.
	Filters []rpc.RPCFilter
}

// LogsFilter picks the transactions a logs subscription notifies.
type LogsFilter struct {
	// Mentions, when set, picks the transactions that mention the key.
	Mentions *solana.PublicKey
	// WithVotes, without Mentions, includes vote transactions; with
	// Mentions it is refused before any connection (an *InputError).
	WithVotes bool
}

// check refuses Mentions with WithVotes, which agave's logsSubscribe
// cannot combine: it filters by one key, or takes every transaction.
func (f LogsFilter) check() error {
	if f.Mentions != nil && f.WithVotes {
		return &InputError{Field: "logs filter", Value: "Mentions and WithVotes",
			Reason: "a node filters by one: Mentions, or WithVotes for every transaction"}
	}
	return nil
}

// Bounds of ProgramSubscribeOptions.Filters, agave's for
// getProgramAccounts and programSubscribe.
const (
	maxFilters     = 4
	maxMemcmpBytes = 128
)

// check refuses a zero account (an unset solana.PublicKey: the System
// Program's own account, which never changes) and unknown options.
func (o *AccountSubscribeOptions) check(account solana.PublicKey) (pubsub.AccountOptions, error) {
	if account.IsZero() {
		return pubsub.AccountOptions{}, &InputError{Field: "pubkey", Value: account.String(),
			Reason: "the zero key, an unset solana.PublicKey (the System Program's account never changes)"}
	}
	if o == nil {
		return pubsub.AccountOptions{}, nil
	}
	if err := validCommitment(o.Commitment); err != nil {
		return pubsub.AccountOptions{}, err
	}
	if err := validEncoding(o.Encoding); err != nil {
		return pubsub.AccountOptions{}, err
	}
	return pubsub.AccountOptions{Commitment: o.Commitment, Encoding: o.Encoding}, nil
}

// check refuses unknown options and filters a node would refuse.
func (o *ProgramSubscribeOptions) check() (pubsub.ProgramOptions, error) {
	if o == nil {
		return pubsub.ProgramOptions{}, nil
	}
	if err := validCommitment(o.Commitment); err != nil {
		return pubsub.ProgramOptions{}, err
	}
	if err := validEncoding(o.Encoding); err != nil {
		return pubsub.ProgramOptions{}, err
	}
	if len(o.Filters) > maxFilters {
		return pubsub.ProgramOptions{}, &InputError{Field: "filters", Value: strconv.Itoa(len(o.Filters)) + " filters",
			Reason: fmt.Sprintf("at most %d", maxFilters)}
	}
	for i, f := range o.Filters {
		if err := validFilter(i, f); err != nil {
			return pubsub.ProgramOptions{}, err
		}
	}
	return pubsub.ProgramOptions{Commitment: o.Commitment, Encoding: o.Encoding, Filters: o.Filters}, nil
}

// validFilter checks one filter: exactly one of DataSize and Memcmp, a
// Memcmp of 1 to maxMemcmpBytes bytes.
func validFilter(i int, f rpc.RPCFilter) error {
	field := "filters[" + strconv.Itoa(i) + "]"
	switch {
	case f.Memcmp == nil && f.DataSize == 0:
		return &InputError{Field: field, Value: "{}", Reason: "neither a DataSize nor a Memcmp"}
	case f.Memcmp != nil && f.DataSize != 0:
		return &InputError{Field: field, Value: "DataSize and Memcmp", Reason: "one of DataSize and Memcmp a filter"}
	case f.Memcmp != nil && (len(f.Memcmp.Bytes) == 0 || len(f.Memcmp.Bytes) > maxMemcmpBytes):
		return &InputError{Field: field, Value: strconv.Itoa(len(f.Memcmp.Bytes)) + " bytes",
			Reason: fmt.Sprintf("a Memcmp compares 1 to %d bytes", maxMemcmpBytes)}
	}
	return nil
}

// validEncoding reports whether e is empty (base64) or an encoding the
// account subscriptions take.
func validEncoding(e solana.EncodingType) error {
	switch e {
	case "", solana.EncodingBase58, solana.EncodingBase64, solana.EncodingBase64Zstd, solana.EncodingJSONParsed:
		return nil
	}
	return &InputError{Field: "encoding", Value: string(e), Reason: "want base58, base64, base64+zstd or jsonParsed"}
}

// checkSignature refuses a zero signature (an unset solana.Signature) and
// an unknown commitment.
func checkSignature(sig solana.Signature, commitment rpc.CommitmentType) error {
	if sig.IsZero() {
		return &InputError{Field: "signature", Value: sig.String(), Reason: "the zero signature, an unset solana.Signature"}
	}
	return validCommitment(commitment)
}
