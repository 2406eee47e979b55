package retrypolicy

import (
	"context"
	"math"
	"time"
)

// NoDeadline is the Attempt.TimeLeft of a call whose context has no
// deadline: no delay reaches it.
const NoDeadline = time.Duration(math.MaxInt64)

// TimeLeft returns the time from now to ctx's deadline (0 or less once it
// has passed), or NoDeadline when ctx has none. Pass now from the injected
// clock.
func TimeLeft(ctx context.Context, now time.Time) time.Duration {
	d, ok := ctx.Deadline()
	if !ok {
		return NoDeadline
	}
	return d.Sub(now)
}
