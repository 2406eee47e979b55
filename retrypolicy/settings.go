package retrypolicy

import (
	"errors"
	"time"

	"github.com/solroute/solroute/endpoint"
)

// Settings tune a Policy. Every value is taken as written: a zero means
// zero (no retries, no backoff, no provider delay honoured, a budget that
// holds nothing). DefaultSettings returns the defaults; start from it.
// Nothing is negative: Validate says what is out of range.
type Settings struct {
	// MaxRetries bounds the counted retries of one call: those of an
	// attempt that was answered or may have reached a server (an attempt
	// that provably never left the client is retried transparently,
	// uncounted, up to TransparentRetries). 0: none.
	MaxRetries int `toml:"max_retries"`
	// TransparentRetries bounds the transparent retries of one call. A
	// request that provably never left the client (a connection error
	// before any byte was written) is retried at once and uncounted, as
	// gRPC does (gRFC A6); but when every endpoint refuses connections such
	// retries would loop without pause until the deadline. Past this many,
	// a never-sent attempt is retried like any other: counted against
	// MaxRetries, with backoff and a retry budget place. 0: none.
	TransparentRetries int `toml:"transparent_retries"`
	// InitialBackoff is the ceiling of the first backoff before a retry that
	// revisits an endpoint the call already failed on (full jitter; the
	// ceiling doubles per retry). 0: no backoff.
	InitialBackoff time.Duration `toml:"initial_backoff"`
	// MaxBackoff caps every backoff ceiling. 0: no backoff.
	MaxBackoff time.Duration `toml:"max_backoff"`
	// MaxProviderDelay caps how long a retry that revisits the endpoint
	// waits for that provider's Retry-After. 0: provider delays are not
	// waited for (the pool's cooldown still keeps the endpoint out).
	MaxProviderDelay time.Duration `toml:"max_provider_delay"`
	// BudgetRatio is the share of recent calls that may be retried above
	// the floor (see Policy): each call adds this much of a token to the
	// retry budget, each such retry spends one. 0: calls add nothing.
	BudgetRatio float64 `toml:"retry_budget_ratio"`
	// BudgetMinRetries is the budget's floor: while fewer retries than
	// this are in flight, a retry is granted without spending a token. 0:
	// no floor.
	BudgetMinRetries int `toml:"retry_budget_min_retries"`
	// BudgetBurst is how many tokens the budget's account holds at most,
	// and holds at first: after a quiet stretch, this many retries above
	// the floor may go before the ratio binds. 0: none.
	BudgetBurst int `toml:"retry_budget_burst"`
	// Jitter returns a value in [0, ceiling] (full jitter). Nil means a
	// uniform pseudo-random draw. Tests inject an exact source. A result
	// outside [0, ceiling] is clamped into it.
	Jitter func(ceiling time.Duration) time.Duration `toml:"-" json:"-"`
}

// DefaultSettings returns the defaults: 3 retries, and 8 transparent ones
// (a pool's worth of dead endpoints); backoff from 100 ms up
// to 2 s; a provider's Retry-After honoured up to 60 s; a retry budget of
// 20 % of recent calls (Envoy's ratio) above a floor of 3 retries in
// flight (Envoy's floor), holding at most 100 tokens.
func DefaultSettings() Settings {
	return Settings{
		MaxRetries:         3,
		TransparentRetries: 8,
		InitialBackoff:     100 * time.Millisecond,
		MaxBackoff:         2 * time.Second,
		MaxProviderDelay:   60 * time.Second,
		BudgetRatio:        0.2,
		BudgetMinRetries:   3,
		BudgetBurst:        100,
	}
}

// Bounds of Validate.
const (
	// maxDelay bounds every duration of Settings: no backoff or provider
	// delay is worth waiting longer inside one call.
	maxDelay = time.Hour
	// maxCount bounds MaxRetries, BudgetMinRetries and BudgetBurst.
	maxCount = 1 << 20
)

// Validate reports every field out of range, as *endpoint.Problem values
// joined with errors.Join: a negative or too large count or duration, a ratio
// outside [0, 1] or not finite, an InitialBackoff above MaxBackoff. It
// names each field by its TOML key and quotes no value.
func (s Settings) Validate() error {
	var errs []error
	for _, c := range []struct {
		key string
		v   int
	}{{"max_retries", s.MaxRetries}, {"transparent_retries", s.TransparentRetries},
		{"retry_budget_min_retries", s.BudgetMinRetries}, {"retry_budget_burst", s.BudgetBurst}} {
		if c.v < 0 || c.v > maxCount {
			errs = append(errs, &endpoint.Problem{Path: c.key, Message: "must be between 0 and 1048576"})
		}
	}
	for _, d := range []struct {
		key string
		v   time.Duration
	}{{"initial_backoff", s.InitialBackoff}, {"max_backoff", s.MaxBackoff}, {"max_provider_delay", s.MaxProviderDelay}} {
		if d.v < 0 || d.v > maxDelay {
			errs = append(errs, &endpoint.Problem{Path: d.key, Message: "must be between 0s and 1h"})
		}
	}
	if !(s.BudgetRatio >= 0 && s.BudgetRatio <= 1) { // NaN fails both
		errs = append(errs, &endpoint.Problem{Path: "retry_budget_ratio", Message: "must be between 0 and 1"})
	}
	if s.InitialBackoff > s.MaxBackoff {
		errs = append(errs, &endpoint.Problem{Path: "initial_backoff", Message: "must not exceed max_backoff"})
	}
	return errors.Join(errs...)
}
