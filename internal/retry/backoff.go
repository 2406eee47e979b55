package retry

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/solroute/solroute/retrypolicy"
)

// backoffCeiling is min(MaxBackoff, InitialBackoff·2^counted): the upper
// bound of the full-jitter draw before the retry that follows counted
// earlier counted retries. Negative settings mean no backoff (0). It
// doubles step by step so that no shift overflows.
func backoffCeiling(s *retrypolicy.Settings, counted int) time.Duration {
	if s.InitialBackoff <= 0 || s.MaxBackoff <= 0 {
		return 0
	}
	c := min(s.InitialBackoff, s.MaxBackoff)
	for i := 0; i < counted && c < s.MaxBackoff; i++ {
		if c > s.MaxBackoff/2 {
			return s.MaxBackoff
		}
		c *= 2
	}
	return c
}

// jitter draws the full-jitter delay in [0, ceiling] from s.Jitter and
// clamps a misbehaving source into that range, so the bound always holds.
func jitter(s *retrypolicy.Settings, ceiling time.Duration) time.Duration {
	if ceiling <= 0 {
		return 0
	}
	return min(max(s.Jitter(ceiling), 0), ceiling)
}

// uniformJitter is the default Jitter: uniform over [0, ceiling].
func uniformJitter(ceiling time.Duration) time.Duration {
	if ceiling <= 0 {
		return 0
	}
	if ceiling == math.MaxInt64 { // ceiling+1 would overflow
		return rand.N(ceiling)
	}
	return rand.N(ceiling + 1)
}
