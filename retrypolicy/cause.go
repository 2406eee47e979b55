package retrypolicy

// Cause is why an attempt failed, as classified by the transport. The zero
// Cause means no failure (a successful attempt) and prints as "none".
type Cause uint8

const (
	// Connection: dial, DNS or TLS failed, or the connection broke.
	Connection Cause = iota + 1
	// Timeout: the attempt's time ran out (its own bound, or the call's
	// deadline, the caller's context's included), or the server answered
	// 408.
	Timeout
	// RateLimited: HTTP 429, or a JSON-RPC error with code 429.
	RateLimited
	// TemporaryHTTP: any HTTP 5xx (500, 502, 503, 504, and 501, 505, 507,
	// 520-527, 530, 598, 599 ...): a server-side failure, which may follow
	// processing (a CDN's 524 says the origin got the request and timed
	// out).
	TemporaryHTTP
	// NodeBehind: a Solana node-state error (-32005, -32004, -32014,
	// -32016): this node cannot answer yet, another may.
	NodeBehind
	// Request: an HTTP status that says the request is wrong, so any
	// endpoint would answer the same: a 4xx other than 408, 429 and those
	// of Refused, a redirect other than those of Refused, any status
	// outside 2xx-5xx.
	Request
	// RPCApplication: a JSON-RPC error that is the caller's: any endpoint
	// at the same slot would answer the same (invalid params, a
	// transaction's own simulation failure, a skipped slot; the table of
	// docs/errors.md, RPCCodeCause).
	RPCApplication
	// MalformedResponse: the answer is not a JSON-RPC response at all (not
	// JSON, truncated, wrong id, over the size limit): an endpoint fault.
	MalformedResponse
	// InvalidResponse: a well-formed result that does not decode into the
	// caller's type; it would be the same anywhere.
	InvalidResponse
	// Canceled: the caller's context was canceled before its deadline (or,
	// in a hedged pair, the transport canceled the attempt the other one
	// overtook).
	Canceled
	// Refused: the endpoint refused the request before processing it for
	// a reason of its own, which another endpoint may not share: a
	// redirect (301, 302, 307, 308; never followed), credentials or plan
	// (401, 402, 403, 407), path or method (404, 405), a misdirected or
	// too-early request (421, 425). See StatusCause.
	Refused
	// RPCEndpoint: a JSON-RPC error that is the endpoint's, not the
	// request's (the table of docs/errors.md, RPCCodeCause): an internal
	// error (-32603), a block, transaction history or long-term storage
	// this node does not keep or reach (-32001, -32011, -32018, -32019), a
	// key outside its secondary indexes (-32010), a scan it aborted by its
	// own limits (-32012), no snapshot (-32008), or a server error agave
	// does not define (-32099 to -32000: a provider's own). Another
	// endpoint may answer. It may follow execution: a send so answered is
	// ambiguous (Outcome.MayHaveActed).
	RPCEndpoint
)

var causeNames = []string{
	0:                 "none",
	Connection:        "connection",
	Timeout:           "timeout",
	RateLimited:       "rate-limited",
	TemporaryHTTP:     "temporary-http",
	NodeBehind:        "node-behind",
	Request:           "request",
	RPCApplication:    "rpc-application",
	MalformedResponse: "malformed-response",
	InvalidResponse:   "invalid-response",
	Canceled:          "canceled",
	Refused:           "refused",
	RPCEndpoint:       "rpc-endpoint",
}

// String returns the cause's kebab-case name ("rate-limited"), "none" for
// the zero Cause and "cause(N)" for an unknown value.
func (c Cause) String() string { return enumName("cause", causeNames, c) }

// MarshalText encodes c as its String; it never fails, so an attempt with
// an unknown cause still encodes.
func (c Cause) MarshalText() ([]byte, error) { return []byte(c.String()), nil }
