package endpoint

import "time"

// Defaults applied to zero-valued Limits fields at run time.
const (
	// DefaultRequestTimeout bounds one call when Limits.RequestTimeout is 0.
	DefaultRequestTimeout = 10 * time.Second
	// DefaultPauseAfterRateLimit is the cooldown after a provider rate limit
	// when Limits.PauseAfterRateLimit is 0.
	DefaultPauseAfterRateLimit = time.Second
	// MaxProviderDelay caps how far a provider's Retry-After may extend a
	// cooldown.
	MaxProviderDelay = 60 * time.Second
)

// Limits are the per-role limits of one endpoint. Every zero value is valid
// and documented.
type Limits struct {
	// RequestsPerSecond is the token bucket's refill rate. 0 means unlimited
	// (no bucket at all).
	RequestsPerSecond float64
	// BurstCapacity is the bucket's size. 0 means one second of
	// RequestsPerSecond, at least 1. Ignored when RequestsPerSecond is 0.
	BurstCapacity int
	// MaxConcurrentRequests caps requests in flight for this role. 0 means
	// unlimited.
	MaxConcurrentRequests int
	// RequestTimeout bounds one whole call (every attempt and backoff) routed
	// to this role. 0 means DefaultRequestTimeout.
	RequestTimeout time.Duration
	// PauseAfterRateLimit is the cooldown after the provider refused a
	// request with a rate limit. 0 means DefaultPauseAfterRateLimit.
	PauseAfterRateLimit time.Duration
}

// Spec is one configured RPC endpoint.
type Spec struct {
	// Name is a unique, non-secret label: the only way the endpoint is ever
	// named in errors, logs, snapshots and metrics. Required.
	Name string
	// URL is the endpoint's HTTP(S) address. It may carry an API key in its
	// path or query and is never printed. Required.
	URL string
	// Headers are sent with every request (for example Authorization). Their
	// values are secrets and are never printed. Nil means none.
	Headers map[string]string
	// Tier orders endpoints by preference: 0 is tried first, then 1, and so
	// on. Negative tiers are invalid.
	Tier int
	// Capabilities are tags a request may require, such as "archive".
	Capabilities []string
	// Roles maps each role the endpoint serves to its limits. An endpoint
	// serves exactly the roles present; at least one is required.
	Roles map[Role]Limits
}

// Serves reports whether the endpoint serves role r.
func (s *Spec) Serves(r Role) bool {
	_, ok := s.Roles[r]
	return ok
}

// HasCapabilities reports whether the endpoint carries every tag in caps.
func (s *Spec) HasCapabilities(caps []string) bool {
	for _, c := range caps {
		found := false
		for _, have := range s.Capabilities {
			if have == c {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
