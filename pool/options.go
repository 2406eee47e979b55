package pool

import (
	"log/slog"

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
}
