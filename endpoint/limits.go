package endpoint

import (
	"math"
	"time"
)

// Defaults applied to zero-valued Limits fields at run time.
const (
	// defaultRequestTimeout bounds one call when Limits.RequestTimeout is 0.
	defaultRequestTimeout = 10 * time.Second
	// defaultPauseAfterRateLimit is the cooldown after a provider rate limit
	// when Limits.PauseAfterRateLimit is 0.
	defaultPauseAfterRateLimit = time.Second
)

// Bounds of Validate; the docs state them as ranges.
const (
	// maxRequestsPerSecond is the largest valid Limits.RequestsPerSecond. A
	// higher rate would not limit anything and would overflow the derived
	// burst.
	maxRequestsPerSecond = 1e9
	// minRequestsPerSecond is the smallest valid non-zero
	// Limits.RequestsPerSecond: one request an hour. A slower rate is an
	// outage rather than a limit, and its one token would take longer to
	// refill than the longest RequestTimeout a caller may wait.
	minRequestsPerSecond = 1.0 / 3600
	// maxRequestTimeout is the longest valid Limits.RequestTimeout: no
	// JSON-RPC call is worth waiting longer for, and a longer bound is
	// more likely a unit typed wrong ("5000s" for "5000ms") than meant.
	maxRequestTimeout = time.Hour
	// maxPauseAfterRateLimit is the longest valid
	// Limits.PauseAfterRateLimit. A provider's own Retry-After is capped
	// far below it (at 60 s).
	maxPauseAfterRateLimit = time.Hour
)

// Limits are the per-role limits of one endpoint. Every zero value is valid
// and documented. The toml tags name each field in a configuration
// document's [endpoints.roles.ROLE] table.
type Limits struct {
	// RequestsPerSecond is the token bucket's refill rate. 0 means unlimited
	// (no bucket at all).
	RequestsPerSecond float64 `toml:"requests_per_second"`
	// BurstCapacity is the bucket's size. 0 means one second of
	// RequestsPerSecond, at least 1. Ignored when RequestsPerSecond is 0.
	BurstCapacity int `toml:"burst_capacity"`
	// MaxConcurrentRequests caps requests in flight for this role. 0 means
	// unlimited.
	MaxConcurrentRequests int `toml:"max_concurrent_requests"`
	// RequestTimeout bounds one whole call (every attempt and backoff) routed
	// to this role. 0 means 10 s.
	RequestTimeout time.Duration `toml:"request_timeout"`
	// PauseAfterRateLimit is the cooldown after the provider refused a
	// request with a rate limit. 0 means 1 s.
	PauseAfterRateLimit time.Duration `toml:"pause_after_rate_limit"`
}

// Normalized returns l with every zero default filled in: BurstCapacity
// derived from RequestsPerSecond (floor of one second of it, at least 1;
// 0 when the rate is unlimited), RequestTimeout and PauseAfterRateLimit set
// to their defaults. RequestsPerSecond and MaxConcurrentRequests keep 0 for
// unlimited. l should be valid (see Validate).
func (l Limits) Normalized() Limits {
	if l.RequestsPerSecond <= 0 {
		l.RequestsPerSecond = 0
		l.BurstCapacity = 0
	} else if l.BurstCapacity <= 0 {
		l.BurstCapacity = int(math.Max(1, math.Floor(math.Min(l.RequestsPerSecond, maxRequestsPerSecond))))
	}
	if l.RequestTimeout <= 0 {
		l.RequestTimeout = defaultRequestTimeout
	}
	if l.PauseAfterRateLimit <= 0 {
		l.PauseAfterRateLimit = defaultPauseAfterRateLimit
	}
	return l
}
