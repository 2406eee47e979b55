package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/solroute/solroute/retrypolicy"
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

// Attempt is one attempt of one call.
type Attempt struct {
	// Endpoint is the endpoint's Name.
	Endpoint string
	// Tier is the endpoint's tier.
	Tier int
	// Outcome is what happened: cause, dispatch state, HTTP status,
	// JSON-RPC code, the provider's delay and whose fault a failure was.
	retrypolicy.Outcome
	// Duration is the attempt's time on the pool's clock, from the permit
	// to the outcome.
	Duration time.Duration
	// Wait is how long the pool took to admit the attempt (a token, a
	// free slot, the end of a cooldown), on the pool's clock.
	Wait time.Duration
	// Timeout is the attempt's own bound: the adaptive or fixed attempt
	// timeout when a cut could buy another attempt (or
	// Settings.AttemptTimeout is set), else the call's budget; cut to the
	// time the call had left, and for a send that may have been written
	// by then, the time to the call's deadline. 0 when the attempt was
	// not made (no time left, or an endpoint unknown to the transport).
	Timeout time.Duration
	// Decision is what the call did next; zero on success.
	Decision retrypolicy.Decision
	// Hedge is true for an attempt sent as a hedge (Settings.HedgeAfter)
	// while an earlier attempt of the call was still running.
	Hedge bool
	// InDoubt is true for an attempt of a call that avoids doubt (a send)
	// routed to an endpoint in doubt, as a last resort.
	InDoubt bool
}

// CallError is a failed call: its method, final cause and every attempt.
// Its Unwrap reaches the error that ended the call: a *RPCError for a
// JSON-RPC error, a *StatusError for an HTTP failure status, the
// connection's typed error (*net.OpError, ...) with its URL removed,
// pool.ErrNoEndpoint or a *pool.DeadlineError from the pool, the caller's
// context error, and ErrAmbiguousDispatch when it applies.
//
// solana-go's own error values are reachable too, for code written
// against its client: errors.As finds a *jsonrpc.RPCError (code, message,
// data decoded as solana-go decodes it) wherever a *RPCError is, and a
// *jsonrpc.HTTPError (Code: the status) wherever a *StatusError of a 4xx
// or 5xx is. Use errors.As, not a type assertion: the error itself is
// always a *CallError.
type CallError struct {
	// Method is the JSON-RPC method ("batch" for CallBatch).
	Method string
	// Cause is the last attempt's cause; when no attempt was made it is
	// Timeout (the pool admitted none before the deadline), Canceled (the
	// caller's context ended) or 0 (no endpoint serves the call).
	Cause retrypolicy.Cause
	// Attempts lists every attempt, in order.
	Attempts []Attempt

	errs []error // what Unwrap reaches; each is secret-free
}

// Error is one short line: the method, what ended the call, how many
// attempts, and the last attempt's error. A call that may have reached a
// server and was not resent says so first, with what to do. %+v adds one
// line per attempt (see Format). Endpoints are named by Name only.
func (e *CallError) Error() string {
	var b strings.Builder
	b.WriteString("transport: ")
	b.WriteString(e.Method)
	if e.ambiguous() {
		b.WriteString(" may have reached a server and was not resent: check whether it landed before sending it again")
	} else {
		b.WriteString(" failed")
		if e.Cause != 0 {
			b.WriteString(": ")
			b.WriteString(e.Cause.String())
		}
	}
	fmt.Fprintf(&b, " (%d attempt", len(e.Attempts))
	if len(e.Attempts) != 1 {
		b.WriteByte('s')
	}
	if n := len(e.Attempts); n > 0 {
		fmt.Fprintf(&b, ", last on %s", e.Attempts[n-1].Endpoint)
	}
	b.WriteByte(')')
	for _, err := range e.errs {
		if err == ErrAmbiguousDispatch {
			continue // said above
		}
		b.WriteString(": ")
		b.WriteString(trimPrefix(err.Error()))
	}
	return b.String()
}

// Format writes Error for %v and %s, and for %+v also one line per
// attempt: "[N] endpoint (tier T): cause, dispatch state, HTTP status,
// JSON-RPC code, duration, what the call did next".
func (e *CallError) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('+'):
		_, _ = io.WriteString(f, e.Error())
		for i := range e.Attempts {
			_, _ = io.WriteString(f, "\n  ")
			_, _ = io.WriteString(f, e.Attempts[i].describe(i+1))
		}
	case verb == 'q':
		_, _ = fmt.Fprintf(f, "%q", e.Error())
	default:
		_, _ = io.WriteString(f, e.Error())
	}
}

// ambiguous reports whether the call ended ambiguous.
func (e *CallError) ambiguous() bool {
	return slices.Contains(e.errs, ErrAmbiguousDispatch)
}

// describe is attempt n on one line.
func (a *Attempt) describe(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%d] %s (tier %d", n, a.Endpoint, a.Tier)
	if a.Hedge {
		b.WriteString(", hedge")
	}
	if a.InDoubt {
		b.WriteString(", in doubt, as a last resort")
	}
	fmt.Fprintf(&b, "): %s, %s", a.Cause, a.Dispatch)
	if a.HTTPStatus != 0 {
		fmt.Fprintf(&b, ", HTTP %d", a.HTTPStatus)
	}
	if a.RPCCode != 0 {
		fmt.Fprintf(&b, ", code %d", a.RPCCode)
	}
	fmt.Fprintf(&b, ", %s", a.Duration)
	if a.Decision.Reason != "" {
		b.WriteString(", ")
		b.WriteString(a.Decision.Reason)
		if a.Decision.Retry && a.Decision.Delay > 0 {
			fmt.Fprintf(&b, " after %s", a.Decision.Delay)
		}
	}
	return b.String()
}

// Unwrap returns the errors that ended the call (see CallError).
func (e *CallError) Unwrap() []error { return e.errs }

// RPCError is a JSON-RPC error answered by an endpoint.
type RPCError struct {
	// Code is the JSON-RPC error code (-32005, 429, ...).
	Code int
	// Message is the server's message.
	Message string
	// Data is the error's raw data member; nil when absent.
	Data json.RawMessage
}

// Error returns "transport: JSON-RPC error CODE: MESSAGE".
func (e *RPCError) Error() string {
	return "transport: JSON-RPC error " + strconv.Itoa(e.Code) + ": " + e.Message
}

// As makes the error also solana-go's: errors.As with a
// **jsonrpc.RPCError target sets it to a new *jsonrpc.RPCError with e's
// code, message and data, the data decoded as solana-go's own client
// decodes it (numbers as json.Number), so that code written for
// solana-go's client (branching on rpcErr.Code) works unchanged through
// the pool. It carries nothing e does not: the transport's copy is
// already redacted.
func (e *RPCError) As(target any) bool {
	t, ok := target.(**jsonrpc.RPCError)
	if !ok {
		return false
	}
	*t = &jsonrpc.RPCError{Code: e.Code, Message: e.Message, Data: solanaGoData(e.Data)}
	return true
}

// solanaGoData is raw as solana-go decodes an error's data member: nil
// when absent, JSON values with numbers as json.Number, and raw's text
// when it is not JSON (never the case for an answer the envelope
// accepted).
func solanaGoData(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(raw)
	}
	return v
}

// StatusError is an HTTP response whose status is not 2xx.
type StatusError struct {
	// StatusCode is the HTTP status (429, 503, ...).
	StatusCode int
	// RetryAfter is the parsed Retry-After header; 0 when absent or invalid.
	RetryAfter time.Duration
}

// Error returns "transport: HTTP STATUS".
func (e *StatusError) Error() string {
	s := "transport: HTTP " + strconv.Itoa(e.StatusCode)
	if e.RetryAfter > 0 {
		s += " (retry after " + e.RetryAfter.String() + ")"
	}
	return s
}

// As makes a 4xx or 5xx status also solana-go's: errors.As with a
// **jsonrpc.HTTPError target sets it to a new *jsonrpc.HTTPError whose
// Code is the status, as solana-go's own client returns for a failure
// status (whatever the body: the transport does not read it as an
// answer). Its text is e's, never the URL solana-go's own would quote.
func (e *StatusError) As(target any) bool {
	t, ok := target.(**jsonrpc.HTTPError)
	if !ok || e.StatusCode < 400 {
		return false
	}
	*t = jsonrpc.NewHTTPError(e.StatusCode, &StatusError{StatusCode: e.StatusCode, RetryAfter: e.RetryAfter})
	return true
}

// attemptError is one attempt's failure, naming the endpoint only by Name.
// err is the underlying error with any *url.Error removed (it embeds the
// URL); msg is err's text with the endpoint's secrets redacted, computed
// once so that Error never sees a secret.
type attemptError struct {
	endpoint string
	cause    retrypolicy.Cause
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
	errBatchMismatch    = errors.New("batch response does not match the requests")
	errEmptyBatch       = errors.New("transport: empty batch")
	errNoTimeLeft       = errors.New("no time left before the call's deadline")
	errCallbackRequired = errors.New("transport: nil callback")
)
