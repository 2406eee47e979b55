package endpoint

import "time"

// Snapshot is a copy of one (endpoint, role) state at one instant. It holds
// no URL and no header.
type Snapshot struct {
	Name string
	Tier int
	Role Role
	// State is the passive health state.
	State Health
	// RequestsPerSecond and Burst are the configured (normalised) bucket;
	// RequestsPerSecond 0 means unlimited.
	RequestsPerSecond float64
	Burst             int
	// Tokens is how many tokens the bucket holds now (+Inf when unlimited).
	Tokens float64
	// MaxConcurrent is the concurrency cap (0 means unlimited) and InFlight
	// the requests holding a slot now.
	MaxConcurrent int
	InFlight      int
	// CooldownRemaining is how long the endpoint still cools down after a
	// rate limit (0 when it does not).
	CooldownRemaining time.Duration
	// Successes, Failures and RateLimits count the outcomes reported so far.
	Successes  uint64
	Failures   uint64
	RateLimits uint64
}

// Health is the passive health state of one (endpoint, role):
//
//	Available  --failure-->        Degraded
//	Available  --rate limit-->     RateLimited
//	Degraded   --rate limit-->     RateLimited
//	RateLimited --cooldown over--> Degraded
//	Degraded   --success-->        Available
type Health uint8

const (
	// Available is the starting state: the last outcome was a success.
	Available Health = iota
	// Degraded follows a failure, or the end of a cooldown.
	Degraded
	// RateLimited holds while a provider-imposed cooldown runs.
	RateLimited
)

// String returns "available", "degraded" or "rate-limited".
func (h Health) String() string {
	switch h {
	case Available:
		return "available"
	case Degraded:
		return "degraded"
	case RateLimited:
		return "rate-limited"
	}
	return "unknown health state"
}
