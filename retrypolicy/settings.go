package retrypolicy

import (
	"math"
	"time"
)

// Defaults applied to a zero field of Settings.
const (
	// DefaultMaxRetries is Settings.MaxRetries when zero.
	DefaultMaxRetries = 3
	// DefaultInitialBackoff is Settings.InitialBackoff when zero.
	DefaultInitialBackoff = 100 * time.Millisecond
	// DefaultMaxBackoff is Settings.MaxBackoff when zero.
	DefaultMaxBackoff = 2 * time.Second
	// DefaultMaxProviderDelay is Settings.MaxProviderDelay when zero.
	DefaultMaxProviderDelay = 60 * time.Second
	// DefaultBudgetRatio is Settings.BudgetRatio when zero (Envoy's 20 %).
	DefaultBudgetRatio = 0.2
	// DefaultBudgetMinRetries is Settings.BudgetMinRetries when zero
	// (Envoy's floor of 3).
	DefaultBudgetMinRetries = 3
	// DefaultBudgetBurst is Settings.BudgetBurst when zero or negative.
	DefaultBudgetBurst = 100
)

// MaxTransparentRetries bounds the transparent retries of one call. A
// request that provably never left the client (a connection error before
// any byte was written) is retried at once and uncounted, as gRPC does
// (gRFC A6); but when every endpoint refuses connections such retries
// would loop without pause until the deadline. Past this many, a never-sent
// attempt is retried like any other: counted against MaxRetries, with
// backoff and a retry budget place.
const MaxTransparentRetries = 8

// Settings tune a Policy. Every zero value means the documented default;
// a negative value switches the feature off where stated.
type Settings struct {
	// MaxRetries bounds retries of answered or maybe-dispatched attempts.
	// 0 means 3; a negative value means no such retry at all.
	MaxRetries int
	// InitialBackoff is the first backoff's ceiling. 0 means 100 ms; a
	// negative value means no backoff.
	InitialBackoff time.Duration
	// MaxBackoff caps every backoff ceiling. 0 means 2 s; a negative value
	// means no backoff.
	MaxBackoff time.Duration
	// MaxProviderDelay caps a provider's Retry-After. 0 means 60 s; a
	// negative value ignores provider delays.
	MaxProviderDelay time.Duration
	// BudgetRatio is the share of recent calls that may be retried (see
	// Policy): each call adds this much of a token to the retry budget, each
	// retry above the floor spends one. 0 (or NaN) means 0.2; a negative
	// value disables the budget.
	BudgetRatio float64
	// BudgetMinRetries is the budget's floor: while fewer retries than this
	// are in flight, a retry is granted without spending a token. 0 means 3;
	// a negative value means no floor.
	BudgetMinRetries int
	// BudgetBurst is how many tokens the retry budget's account holds at
	// most: after a quiet stretch, this many retries above the floor may go
	// before the ratio binds, and it absorbs bursts of failures that stay
	// below the ratio on average. 0 or negative means 100.
	BudgetBurst int
	// Jitter returns a value in [0, ceiling] (full jitter). Nil means a
	// uniform pseudo-random draw. Tests inject an exact source. A result
	// outside [0, ceiling] is clamped into it.
	Jitter func(ceiling time.Duration) time.Duration
}

// Normalized returns s with every zero field replaced by its default. It
// keeps negative values (their meaning is "off"), so it is idempotent.
func (s Settings) Normalized() Settings {
	if s.MaxRetries == 0 {
		s.MaxRetries = DefaultMaxRetries
	}
	if s.InitialBackoff == 0 {
		s.InitialBackoff = DefaultInitialBackoff
	}
	if s.MaxBackoff == 0 {
		s.MaxBackoff = DefaultMaxBackoff
	}
	if s.MaxProviderDelay == 0 {
		s.MaxProviderDelay = DefaultMaxProviderDelay
	}
	if s.BudgetRatio == 0 || math.IsNaN(s.BudgetRatio) {
		s.BudgetRatio = DefaultBudgetRatio
	}
	if s.BudgetMinRetries == 0 {
		s.BudgetMinRetries = DefaultBudgetMinRetries
	}
	if s.BudgetBurst <= 0 {
		s.BudgetBurst = DefaultBudgetBurst
	}
	if s.Jitter == nil {
		s.Jitter = uniformJitter
	}
	return s
}

// maxRetries is the normalised retry bound with "off" as 0.
func (s *Settings) maxRetries() int { return max(s.MaxRetries, 0) }
