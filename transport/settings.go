package transport

import (
	"log/slog"
	"time"

	"github.com/solroute/solroute/methods/registry"
	"github.com/solroute/solroute/retrypolicy"
)

// Settings tune a Client. The zero value is valid.
type Settings struct {
	// Retry tunes the retry policy; zero fields mean its defaults.
	Retry retrypolicy.Settings
	// MaxResponseBytes bounds one response body, read as a stream. 0 means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// Logger receives one structured line per attempt naming endpoints by
	// Name only. Nil discards.
	Logger *slog.Logger
	// Registry maps method names to role and class. Nil means
	// registry.Default().
	Registry *registry.Registry
	// AttemptTimeout bounds one attempt, on top of the endpoint's
	// RequestTimeout and the time left before the call's deadline. 0 means
	// half the call's budget (the time from its start to its shared
	// deadline), so that an endpoint that hangs leaves time to fail over at
	// least once; a negative value means no bound of its own (an attempt may
	// then use the whole budget, and a hang is never failed over).
	AttemptTimeout time.Duration
	// HedgeAfter, when positive, hedges reads: a call of class Idempotent
	// whose attempt has no answer after HedgeAfter sends the same request
	// to another endpoint, if one can be admitted at once and the retry
	// budget pays for it (one hedge per call), and takes the first good
	// answer; the other attempt is canceled. An attempt overtaken by its
	// hedge counts as a failure of its endpoint and puts it in doubt, so
	// HedgeAfter is also the line between slow and failing: set it above
	// the slowest method's normal latency. 0 (the default) or negative
	// means no hedging. See plans/006-hedged-reads.md.
	HedgeAfter time.Duration
	// OnAttempt, when set, is called after every attempt (success or not),
	// from the calling goroutine.
	OnAttempt func(method string, a Attempt)
}

// DefaultMaxResponseBytes is the response size limit when
// Settings.MaxResponseBytes is 0.
const DefaultMaxResponseBytes = 64 << 20
