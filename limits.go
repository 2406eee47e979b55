package solroute

import (
	"errors"

	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/pool"
)

// The [limits] table of a document says where the buckets live; the
// limiter that keeps them in Redis is the program's to build and pass
// (Hooks.Limits), so that the root links no Redis client
// (plans/013-shared-limits.md, "The limiter is passed, not linked").

// documentLimiter checks that the document's [limits] and the limiter the
// program passed agree, and returns the limiter: a document that asks for
// shared limits gets an error naming the missing import, not local
// buckets (ten replicas would send ten times the quota), and one that
// keeps them local does not silently share.
func documentLimiter(l config.Limits, lim pool.Limiter) (pool.Limiter, error) {
	switch {
	case l.Backend == config.BackendRedis && lim == nil:
		// The one door that says which import is missing.
		return nil, errors.New(`solroute: the document's [limits] backend = "redis" needs the shared limiter, and Hooks.Limits is nil: ` +
			`import "github.com/solroute/solroute/redislimit", build it with lim, err := redislimit.New(ctx, doc.Limits, redislimit.Options{}) ` +
			`and pass solroute.Hooks{Limits: lim} (Close it after the client); nothing was sent`)
	case l.Backend != config.BackendRedis && lim != nil:
		return nil, errors.New(`solroute: Hooks.Limits passes a shared limiter, but the document's [limits] backend is "local": ` +
			`set backend = "redis" (and its url) to share the limits, or pass no limiter; nothing was sent`)
	}
	return lim, nil
}
