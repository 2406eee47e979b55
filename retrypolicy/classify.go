package retrypolicy

// StatusCause returns the cause of an HTTP response status: 0 for 2xx,
// whose body then decides. The table (RFC 9110 §15; plans/003-transport.md):
//
//   - 429 → RateLimited; 408 → Timeout;
//   - every 5xx → TemporaryHTTP;
//   - 301, 302, 307, 308, 401, 402, 403, 404, 405, 407, 421, 425 → Refused:
//     this endpoint refused the request before processing it, another may
//     not;
//   - anything else (1xx, other 3xx, other 4xx, outside 100-599) → Request.
func StatusCause(code int) Cause {
	switch {
	case code >= 200 && code < 300:
		return 0
	case code == 429:
		return RateLimited
	case code == 408:
		return Timeout
	case code >= 500 && code < 600:
		return TemporaryHTTP
	}
	switch code {
	case 301, 302, 307, 308, 401, 402, 403, 404, 405, 407, 421, 425:
		return Refused
	}
	return Request
}

// Solana node-state JSON-RPC codes (agave rpc-client-api custom_error.rs):
// this node cannot answer yet; another may.
const (
	codeBlockNotAvailable          = -32004
	codeNodeUnhealthy              = -32005
	codeBlockStatusNotAvailableYet = -32014
	codeMinContextSlotNotReached   = -32016
	// codeRateLimited is a rate limit answered as a JSON-RPC error (some
	// providers and proxies answer HTTP 200 this way).
	codeRateLimited = 429
)

// RPCCodeCause returns the cause of a JSON-RPC error code: 429 →
// RateLimited; -32004, -32005, -32014, -32016 → NodeBehind; anything else
// → RPCApplication.
func RPCCodeCause(code int) Cause {
	switch code {
	case codeRateLimited:
		return RateLimited
	case codeNodeUnhealthy, codeBlockNotAvailable, codeBlockStatusNotAvailableYet,
		codeMinContextSlotNotReached:
		return NodeBehind
	}
	return RPCApplication
}
