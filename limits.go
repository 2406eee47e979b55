package solroute

import (
	"context"
	"fmt"

	"github.com/solroute/solroute/redislimit"
)

// The [limits] table of a document: with backend = "redis" the pool's
// buckets are the shared ones of a redislimit.Limiter, which the client
// owns and closes (plans/013-shared-limits.md); plain Go reaches the same
// through Options.Limits.

// openLimits returns the limiter s asks for: nil for local buckets. A
// Redis that cannot be reached is no error (the limiter starts on its
// fallback); credentials or a database it refuses are, quoting no part of
// the URL.
func openLimits(s redislimit.Settings, h Hooks) (*redislimit.Limiter, error) {
	if s.Backend != redislimit.BackendRedis {
		return nil, nil
	}
	l, err := redislimit.New(context.Background(), s, redislimit.Options{Clock: h.Clock, Logger: h.Logger})
	if err != nil {
		return nil, fmt.Errorf("solroute: [limits] %w", err)
	}
	return l, nil
}

// closeLimits closes the client's limiter, if it has one.
func (c *Client) closeLimits() error {
	if c.limiter == nil {
		return nil
	}
	return c.limiter.Close()
}

// Limiter returns the shared limiter the document's [limits] table made
// (its Stats say how often Redis was asked and whether it is down), or nil
// when the buckets are local.
func (c *Client) Limiter() *redislimit.Limiter { return c.limiter }
