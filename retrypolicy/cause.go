package retrypolicy

// Cause is why an attempt failed, as classified by the transport. The zero
// Cause means no failure (a successful attempt) and prints as "none".
type Cause uint8

const (
	// Connection: dial, DNS or TLS failed, or the connection broke.
	Connection Cause = iota + 1
	// Timeout: the attempt's time ran out, or the server answered 408.
	Timeout
	// RateLimited: HTTP 429, or a JSON-RPC error with code 429.
	RateLimited
	// TemporaryHTTP: HTTP 500, 502, 503 or 504.
	TemporaryHTTP
	// NodeBehind: a Solana node-state error (-32005, -32004, -32014,
	// -32016): this node cannot answer yet, another may.
	NodeBehind
	// Request: an HTTP 4xx other than 408 and 429; the request is wrong.
	Request
	// RPCApplication: any other JSON-RPC error.
	RPCApplication
	// MalformedResponse: the answer is not a JSON-RPC response at all (not
	// JSON, truncated, wrong id, over the size limit): an endpoint fault.
	MalformedResponse
	// InvalidResponse: a well-formed result that does not decode into the
	// caller's type; it would be the same anywhere.
	InvalidResponse
	// Canceled: the caller's context ended.
	Canceled
)

// Causes lists every Cause, for exhaustive tests and tables.
var Causes = [...]Cause{Connection, Timeout, RateLimited, TemporaryHTTP, NodeBehind,
	Request, RPCApplication, MalformedResponse, InvalidResponse, Canceled}

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
}

// String returns the cause's kebab-case name ("rate-limited"), "none" for
// the zero Cause and "cause(N)" for an unknown value.
func (c Cause) String() string { return enumName("cause", causeNames, c) }

// MarshalText encodes c as its String; it never fails, so an attempt with
// an unknown cause still encodes.
func (c Cause) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText parses a name written by MarshalText ("none" included).
func (c *Cause) UnmarshalText(text []byte) error {
	return enumParse(c, "cause", causeNames, text)
}
