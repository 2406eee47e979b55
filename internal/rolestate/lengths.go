package rolestate

import (
	"time"

	"github.com/solroute/solroute/endpoint"
)

// maxProviderDelay caps how far a provider's Retry-After may extend a
// cooldown.
const maxProviderDelay = 60 * time.Second

// cooldownOf returns how long an (endpoint, role) with limits l pauses
// after a provider rate limit that asked for providerDelay (0 or negative:
// none was given): the configured pause (or its default), extended to
// providerDelay when that is longer, with providerDelay capped at
// maxProviderDelay. It only ever returns one of those values, so it cannot
// overflow; the Runtime adds it to the current instant with saturation.
func cooldownOf(l endpoint.Limits, providerDelay time.Duration) time.Duration {
	pause := l.PauseAfterRateLimit
	if pause <= 0 {
		pause = endpoint.Limits{}.Normalized().PauseAfterRateLimit
	}
	providerDelay = min(providerDelay, maxProviderDelay)
	return max(pause, providerDelay)
}

// ejects reports whether e ejects at all.
func ejects(e endpoint.Ejection) bool { return e.After > 0 && e.Base > 0 }

// ejectionLength returns the length of an ejection under e that follows
// prior ejections without a success in between: Base × 2^prior, capped at
// max(Max, Base). The doubling stops at the cap and cannot overflow; it is
// 0 when e does not eject.
func ejectionLength(e endpoint.Ejection, prior int) time.Duration {
	if !ejects(e) {
		return 0
	}
	limit := max(e.Max, e.Base)
	d := e.Base
	for range prior {
		if d >= limit/2 {
			return limit
		}
		d *= 2
	}
	return min(d, limit)
}
