package admission

import (
	"log/slog"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/pool"
)

// Options carry what code supplies and a document does not: time, logging
// and a bucket factory. The zero value is valid.
type Options struct {
	// Clock is the source of time for buckets, cooldowns, deadlines and
	// waits. Nil means the real clock.
	Clock clockwork.Clock
	// Logger receives one debug line per wait and per state change, naming
	// endpoints only by Name. Nil discards.
	Logger *slog.Logger
	// NewBucket, when set, supplies the token bucket of each (endpoint,
	// role), for example one shared between processes. Nil, or a nil
	// result, means an in-process golang.org/x/time/rate bucket of the
	// role's limits.
	NewBucket func(spec *endpoint.Spec, role endpoint.Role) pool.Bucket
	// Seed seeds the random draws of the balancing inside a tier (two
	// candidates per Acquire), for tests that want the same draws on every
	// run. 0 means a random seed.
	Seed uint64
	// Registry names the history methods the pool keeps avoidances for
	// (its methods marked History, and getSignatureStatuses; Request.History). Nil means
	// methods.Default().
	Registry *methods.Registry
}
