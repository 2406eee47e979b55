package engine

import (
	"errors"
)

// ErrAmbiguousDispatch is matched (errors.Is) by a *CallError of a call
// that is not Idempotent (sendTransaction, requestAirdrop, sendBundle, a
// method nobody declared, a batch holding one) that stopped because a
// server may have acted on an attempt: the request was handed to a
// connection and no answer came, or a server answered with something that
// does not prove it did not act (a 5xx, a 408, a broken, garbled or HTML
// body, a result that did not decode, a JSON-RPC error not known to come
// before execution), or the caller cancelled after the request was
// handed over. retrypolicy.Outcome.MayHaveActed is the rule.
//
// The transport never resends such a call. What the caller does next, for a
// transaction: poll getSignatureStatuses for the transaction's signature
// (with searchTransactionHistory when needed) until it is found, or until
// getBlockHeight passes the lastValidBlockHeight of the blockhash the
// transaction was signed with. Found: it landed, do not send again. Not
// found after that height: the transaction can never land, so it is safe
// to sign a new one with a fresh blockhash. Before that height, re-sending
// the identical signed bytes is also safe (a signature executes at most
// once), but re-signing is not.
var ErrAmbiguousDispatch = errors.New("transport: request may have reached a server; not resent")

// attemptError is one attempt's failure, naming the endpoint only by Name.
// err is the underlying error with any *url.Error removed (it embeds the
// URL); msg is err's text with the endpoint's secrets redacted, computed
// once so that Error never sees a secret.
type attemptError struct {
	endpoint string
	msg      string
	err      error
}

func (e *attemptError) Error() string {
	return e.endpoint + ": " + e.msg
}

func (e *attemptError) Unwrap() error { return e.err }

// Failures the transport itself detects. Their text is fixed and
// secret-free.
var (
	errAttemptTimeout   = errors.New("attempt timed out")
	errSuperseded       = errors.New("canceled: its hedge answered first")
	errBatchMismatch    = errors.New("batch response does not match the requests")
	errEmptyBatch       = errors.New("transport: empty batch")
	errNoTimeLeft       = errors.New("no time left before the call's deadline")
	errCallbackRequired = errors.New("transport: nil callback")
	errResultTarget     = errors.New("transport: the result target must be nil or a non-nil pointer")
)
