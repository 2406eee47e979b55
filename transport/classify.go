package transport

import (
	"context"
	"errors"
	"net"
	"net/http"

	"github.com/solroute/solroute/retrypolicy"
)

// classifyStatus returns the cause of an HTTP status: 0 for 2xx, which
// the body then decides.
func classifyStatus(code int) retrypolicy.Cause {
	switch code {
	case http.StatusTooManyRequests:
		return retrypolicy.RateLimited
	case http.StatusRequestTimeout:
		return retrypolicy.Timeout
	case http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return retrypolicy.TemporaryHTTP
	}
	if code >= 200 && code < 300 {
		return 0
	}
	// Every other status (3xx, 4xx, the remaining 5xx) says the request or
	// the configuration is wrong.
	return retrypolicy.Request
}

// Solana node-state JSON-RPC codes (agave's rpc-client-api custom_error.rs):
// this node cannot answer yet, another may.
const (
	codeBlockNotAvailable          = -32004
	codeNodeUnhealthy              = -32005
	codeBlockStatusNotAvailableYet = -32014
	codeMinContextSlotNotReached   = -32016
	// codeRateLimited is a rate limit answered as a JSON-RPC error (some
	// providers and proxies answer HTTP 200 this way).
	codeRateLimited = 429
)

// classifyRPCCode returns the cause of a JSON-RPC error code.
func classifyRPCCode(code int) retrypolicy.Cause {
	switch code {
	case codeRateLimited:
		return retrypolicy.RateLimited
	case codeNodeUnhealthy, codeBlockNotAvailable, codeBlockStatusNotAvailableYet,
		codeMinContextSlotNotReached:
		return retrypolicy.NodeBehind
	}
	return retrypolicy.RPCApplication
}

// classifyErr returns the cause of an error that ended an attempt while
// sending or reading: ctx is the caller's context, actx the attempt's.
// Checks go by what is known, most specific first; never by message text.
func classifyErr(ctx, actx context.Context, err error) retrypolicy.Cause {
	// The caller's context ended: nothing was learnt about the endpoint.
	if ctx.Err() != nil {
		return retrypolicy.Canceled
	}
	// The attempt's own timer (pool clock) fired: the endpoint was slow.
	if errors.Is(context.Cause(actx), errAttemptTimeout) {
		return retrypolicy.Timeout
	}
	// A timeout reported by the network stack.
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return retrypolicy.Timeout
	}
	// Everything else that ends an exchange without a usable answer (dial,
	// DNS, TLS, reset, EOF, "HTTP response to HTTPS client") is the
	// connection's failure. Whether the request left is the dispatch
	// tracker's business, not this function's.
	return retrypolicy.Connection
}

// ambiguous reports whether an attempt of a NeverAfterDispatch call may
// have been acted on by a server: bytes were written and no answer came, or
// the answer does not prove the server did not act (a 5xx, 408, a broken or
// garbled body), or the caller gave up after writing. A rate limit or a
// node-state error proves the request was refused before forwarding; a
// JSON-RPC application error or a 4xx is the server's definite answer; an
// undecodable result is a definite acceptance.
func ambiguous(cause retrypolicy.Cause, d retrypolicy.DispatchState) bool {
	switch d {
	case retrypolicy.MaybeDispatched:
		return true
	case retrypolicy.Answered:
		switch cause {
		case retrypolicy.Connection, retrypolicy.Timeout, retrypolicy.TemporaryHTTP,
			retrypolicy.MalformedResponse, retrypolicy.Canceled:
			return true
		}
	}
	return false
}
