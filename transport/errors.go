package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/solroute/solroute/retrypolicy"
)

// CallError is a failed call: its method, final cause and every attempt.
// Its Unwrap reaches the errors that ended the call (Errs): a *RPCError
// for a JSON-RPC error, a *StatusError for an HTTP failure status, a
// *StaleError or an *OutlierError for an answer at the wrong slot, the
// connection's typed error (*net.OpError, ...) with its URL removed, the
// pool's when no endpoint could be had (matching solroute.ErrNoEndpoint
// or solroute.ErrDeadline), the caller's context error, and
// solroute.ErrAmbiguousDispatch when it applies (Ambiguous).
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
	// Ambiguous is set when an attempt of a call that is not Idempotent
	// (a send) may have reached a server and the call was not resent:
	// check whether it landed before sending it again. The error then
	// matches solroute.ErrAmbiguousDispatch.
	Ambiguous bool
	// Errs are the errors that ended the call, in order, each secret-free:
	// what Unwrap returns. When Ambiguous, the last is
	// solroute.ErrAmbiguousDispatch.
	Errs []error
}

// Error is one short line: the method, what ended the call, how many
// attempts, and the last attempt's error. A call that may have reached a
// server and was not resent says so first, with what to do. %+v adds one
// line per attempt (see Format). Endpoints are named by Name only.
func (e *CallError) Error() string {
	var b strings.Builder
	b.WriteString("transport: ")
	b.WriteString(e.Method)
	if e.Ambiguous {
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
	for i, err := range e.Errs {
		if e.Ambiguous && i == len(e.Errs)-1 {
			continue // solroute.ErrAmbiguousDispatch: said above
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

// Unwrap returns the errors that ended the call (see CallError).
func (e *CallError) Unwrap() []error { return e.Errs }

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

// StaleError is an answer older than the least slot the read accepts:
// one already returned to the same caller (its Session), the
// minContextSlot it asked for, or the pool's reference slot less the
// allowed lag. It comes from an endpoint that took no minContextSlot or
// ignored it. Its cause is node-behind: the call retries it elsewhere
// while it can.
type StaleError struct {
	// Commitment is the commitment the slots are at.
	Commitment rpc.CommitmentType
	// Slot is the answer's context slot; Floor the slot it had to reach.
	Slot, Floor uint64
}

// Error reads "stale answer: context slot 940 (confirmed) is below slot
// 1000, the least this read accepts".
func (e *StaleError) Error() string {
	return fmt.Sprintf("stale answer: context slot %d (%s) is below slot %d, the least this read accepts",
		e.Slot, e.Commitment, e.Floor)
}

// OutlierError is an answer at a slot further ahead of the slot the
// endpoints agree on (the pool's reference) than any honest node could
// be: one endpoint's claim no other corroborates. It is refused, so that
// it never becomes a caller's mark; its cause is node-behind (this node's
// state is unusable; another may answer).
type OutlierError struct {
	// Commitment is the commitment the slots are at.
	Commitment rpc.CommitmentType
	// Slot is the answer's slot; Ceiling the highest slot accepted.
	Slot, Ceiling uint64
}

// Error reads "answer at slot 1000000000000 (confirmed) is ahead of what
// the other endpoints agree on (at most 1032)".
func (e *OutlierError) Error() string {
	return fmt.Sprintf("answer at slot %d (%s) is ahead of what the other endpoints agree on (at most %d)",
		e.Slot, e.Commitment, e.Ceiling)
}

// trimPrefix drops the package prefix of the call's own error texts when
// nested in another of its messages.
func trimPrefix(s string) string { return strings.TrimPrefix(s, "transport: ") }
