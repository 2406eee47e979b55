package retry

import "github.com/solroute/solroute/retrypolicy"

// StatusCause returns the cause of an HTTP response status: 0 for 2xx,
// whose body then decides. The table (RFC 9110 §15; plans/003-transport.md):
//
//   - 429 → RateLimited; 408 → Timeout;
//   - every 5xx → TemporaryHTTP;
//   - 301, 302, 307, 308, 401, 402, 403, 404, 405, 407, 421, 425 → Refused:
//     this endpoint refused the request before processing it, another may
//     not;
//   - anything else (1xx, other 3xx, other 4xx, outside 100-599) → Request.
func StatusCause(code int) retrypolicy.Cause {
	switch {
	case code >= 200 && code < 300:
		return 0
	case code == 429:
		return retrypolicy.RateLimited
	case code == 408:
		return retrypolicy.Timeout
	case code >= 500 && code < 600:
		return retrypolicy.TemporaryHTTP
	}
	switch code {
	case 301, 302, 307, 308, 401, 402, 403, 404, 405, 407, 421, 425:
		return retrypolicy.Refused
	}
	return retrypolicy.Request
}
