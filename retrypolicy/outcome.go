package retrypolicy

import "time"

// Fault says whose doing a failed attempt was. The zero Fault belongs to a
// successful attempt and prints as "none".
type Fault uint8

const (
	// EndpointFault: the endpoint's doing. It was down, slow, out of quota,
	// behind, refusing, erroring or garbling; or, in a hedged pair, it was
	// overtaken by the other attempt (the transport cancels it, and the
	// endpoint is held to account as for a timeout). Only such a failure
	// feeds the endpoint's health.
	EndpointFault Fault = iota + 1
	// RequestFault: the endpoint answered properly and the answer is the
	// caller's: a JSON-RPC error of cause RPCApplication (one of the
	// endpoint's, RPCEndpoint, is an EndpointFault), an HTTP 4xx that any endpoint would
	// repeat, a result that does not decode into the caller's type. The
	// endpoint worked.
	RequestFault
	// CallerFault: the caller's context ended. Nothing was learnt about the
	// endpoint.
	CallerFault
	// LocalFault: the client's own bound ended the attempt: the response
	// size limit, the call's deadline cutting the attempt below its own
	// timeout, no time left to start it, an attempt canceled because the
	// other attempt of a hedged pair answered first, a read refused a few
	// slots short of the client's own floor (Outcome.NotYet). Nothing was
	// learnt about the endpoint's health.
	LocalFault
)

var faultNames = []string{
	0:             "none",
	EndpointFault: "endpoint",
	RequestFault:  "request",
	CallerFault:   "caller",
	LocalFault:    "local",
}

// String returns the fault's name ("endpoint", "request", "caller",
// "local"), "none" for the zero Fault and "fault(N)" for an unknown value.
func (f Fault) String() string { return enumName("fault", faultNames, f) }

// MarshalText encodes f as its String; it never fails.
func (f Fault) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// Outcome is what happened to one attempt: one value, built once by the
// transport where the facts are known, read by everyone else through its
// methods (the retry decision, the permit that feeds the endpoint's
// health, the call's error). The zero Outcome is a success.
type Outcome struct {
	// Cause is why the attempt failed; 0 on success.
	Cause Cause
	// Dispatch is what the transport proved about the request reaching a
	// server.
	Dispatch DispatchState
	// HTTPStatus is the response's status; 0 when no status line arrived.
	HTTPStatus int
	// RPCCode is the JSON-RPC error code of the answer (of a whole batch
	// when every member failed alike); 0 when none.
	RPCCode int
	// ProviderDelay is the provider's Retry-After on a 429 or a 503; 0
	// when none was given.
	ProviderDelay time.Duration
	// Fault is whose doing a failure was; 0 on success.
	Fault Fault
	// NotYet, for a read refused as NodeBehind (-32016, or an answer
	// below the slot the read had to reach), is how many slots the
	// endpoint's bank was short of that slot, when no more than the
	// pool's MaxSlotLag: an endpoint in step that has not reached the
	// client's own floor yet, not one behind. 0 otherwise. Such a refusal
	// is the client's bound (Fault LocalFault), and Decide retries it
	// uncounted (RuleNotYet).
	NotYet uint64
}

// Failed reports whether the attempt failed.
func (o Outcome) Failed() bool { return o.Cause != 0 }

// MayHaveActed reports whether a server may have acted on the request: it
// is the one place that judges it. It is false only when the attempt
// proves that no server did:
//
//   - NotDispatched: no connection was ever handed the request (refused
//     connection, DNS or TLS failure, no time left to start), so no byte
//     of it left the client;
//   - an answer that is a refusal by definition: a rate limit (HTTP 429,
//     or JSON-RPC error 429), a node-state error (-32004, -32005, -32014,
//     -32016: agave checks node health before it executes or forwards
//     anything), or an HTTP status of cause [Refused] (see [StatusCause]);
//   - an HTTP 4xx that refuses the request as a whole before processing
//     it (400, 411, 413, 414, 415, 431, 451; RFC 9110 §15.5), or a
//     JSON-RPC error that agave returns before it executes or forwards
//     (see rejectedBeforeExecution), whether the error is the caller's
//     (RPCApplication) or the endpoint's (RPCEndpoint).
//
// Everything else may have been acted on: bytes written and no answer
// (MaybeDispatched), a 5xx or 408, a broken, garbled or truncated body, a
// redirect that is not one of 301/302/307/308, any other 4xx, a JSON-RPC
// error not known to be a pre-execution rejection, a success, and a result
// that arrived but did not decode (the server accepted the request).
func (o Outcome) MayHaveActed() bool {
	switch o.Dispatch {
	case NotDispatched:
		return false
	case Answered:
	default: // MaybeDispatched, or a state this package does not define
		return true
	}
	switch o.Cause {
	case RateLimited, NodeBehind, Refused:
		// Refusals by definition (see StatusCause and RPCCodeCause).
		return false
	case Request:
		return !rejectedStatus(o.HTTPStatus)
	case RPCApplication, RPCEndpoint:
		// Whose error it is does not say whether it was acted on: the
		// code does (the same rule for both causes, so the table of
		// docs/errors.md leaves the send rule as it was).
		return !rejectedBeforeExecution(o.RPCCode)
	}
	return true
}

// rejectedStatus reports whether an HTTP 4xx of cause [Request] proves the
// request was refused as a whole before processing (RFC 9110 §15.5): a
// malformed request (400), missing length (411), content or URI or header
// fields too large (413, 414, 431), unsupported media type (415),
// unavailable for legal reasons (451).
func rejectedStatus(code int) bool {
	switch code {
	case 400, 411, 413, 414, 415, 431, 451:
		return true
	}
	return false
}

// rejectedBeforeExecution reports whether a JSON-RPC error code is one
// that agave returns before it executes or forwards a request, so that a
// call answered with it was not acted on (agave rpc-client-api
// custom_error.rs; rpc.rs sendTransaction: sanitize, then signature
// verification, then node health, then preflight simulation, all before
// forwarding):
//
//   - -32700 parse error, -32600 invalid request, -32601 method not
//     found, -32602 invalid params (JSON-RPC 2.0: the call never ran);
//   - -32002 preflight simulation failed, -32003 signature verification
//     failed, -32006 precompile verification failed, -32013 signature
//     length mismatch, -32015 unsupported transaction version.
//
// The rate limit (429) and node-state codes (-32004, -32005, -32014,
// -32016) are refusals too; the transport classifies them as
// [RateLimited] and [NodeBehind]. Any other code, a provider's own
// included, may follow execution.
func rejectedBeforeExecution(code int) bool {
	switch code {
	case -32700, -32600, -32601, -32602, -32002, -32003, -32006, -32013, -32015:
		return true
	}
	return false
}
