package pool

import (
	"log/slog"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
)

// Options tunes a Pool. The zero value is valid.
type Options struct {
	// Clock is the source of time for buckets, cooldowns, deadlines and
	// waits. Nil means the real clock.
	Clock clockwork.Clock
	// Logger receives one debug line per wait and per state change, naming
	// endpoints only by Name. Nil discards.
	Logger *slog.Logger
	// NewBucket, when set, supplies the token bucket of each (endpoint,
	// role), for example one shared between processes. Nil, or a nil
	// result, means endpoint.NewRateBucket of the role's limits.
	NewBucket func(spec *endpoint.Spec, role endpoint.Role) endpoint.Bucket
	// Ejection configures passive ejection after consecutive failures, for
	// every (endpoint, role). The zero value means endpoint's defaults (5
	// failures, 250 ms doubling up to 2 s); After < 0 never ejects.
	Ejection endpoint.Ejection
	// DoubtWindow is how long an endpoint stays in doubt after one of its
	// attempts, of any method and role, ended by its own doing the way
	// that would leave a call that must never be sent twice ambiguous
	// (retrypolicy.Outcome.Doubtful: a reset after writing, a timeout, a
	// 5xx, a broken body). Requests with AvoidDoubt use such an endpoint
	// only as a last resort. 0 means DefaultDoubtWindow; negative turns
	// the preference off.
	DoubtWindow time.Duration
	// DoubtPatience is how long a request with AvoidDoubt waits for an
	// endpoint that is not in doubt, when every one is busy, rate-limited
	// or cooling down, before it takes one in doubt; at most half the time
	// left before its deadline. 0 means DefaultDoubtPatience; negative
	// takes one at once.
	DoubtPatience time.Duration
}

// Defaults of the doubt options.
const (
	// DefaultDoubtWindow is Options.DoubtWindow when zero: Envoy's base
	// ejection time. A provider that resets one request in ten thousand
	// is avoided by sends most of the time, at no cost while peers are up.
	DefaultDoubtWindow = 30 * time.Second
	// DefaultDoubtPatience is Options.DoubtPatience when zero: well under a
	// slot (400 ms), far under what an ambiguous send costs its caller
	// (polling its signature until the blockhash expires, about a minute).
	DefaultDoubtPatience = 250 * time.Millisecond
)

// orDefault normalises a duration option whose zero means def and whose
// negative value means off: it returns def, d itself, or 0 (off).
func orDefault(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}
