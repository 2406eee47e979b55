package solroute

import (
	"math"
	"time"

	"github.com/solroute/solroute/internal/admission"
)

// The default in-flight cap of a bulk read (BulkOptions.InFlight 0): what
// the endpoints can take, by Little's law, from what the pool knows of
// them. Why these figures: plans/018-reads-at-scale.md, "Bulk reads".
const (
	// capHeadroom multiplies the rate-limited endpoints' rate × latency:
	// the estimate's jitter and the client's own time per request (a
	// chunk's decode and hand-over) are not in the latency the pool
	// measures. The buckets pace the excess: a chunk over the need waits
	// for a token, about (headroom - 1) × latency.
	capHeadroom = 1.25
	// capPrior is the latency assumed for an endpoint with no estimate
	// (no answer yet, or one decayed to nothing while idle).
	capPrior = 100 * time.Millisecond
	// capUnlimited is what the endpoints with neither a rate nor a
	// concurrency limit take together, shared among the endpoints: the
	// cap measured before the rule (3 endpoints at 300 req/s, 30 ms),
	// and the source's 32.
	capUnlimited = 32
	// capStart is the most an adaptive cap starts at: the pool's
	// estimates before the call (a peak EWMA, or the prior) may be far
	// above the need, and the call's own answers correct them within the
	// first asks (bulk_workers.go).
	capStart = 32
	// capMin and capMax bound the rule's answer (capMin yields to the
	// sum of the endpoints' concurrency caps when lower).
	capMin, capMax = 4, 256
)

// adaptiveCap is the default cap on chunks in flight over the endpoints
// cs (the first tier a read is admitted to): ceil(Σ capHeadroom × rate ×
// latency) over the rate-limited ones, each at most its BurstCapacity (a
// bunch of arrivals larger than the bucket is what a provider's bucket of
// the same size refuses: in flight, requests bunch on the way) and its
// MaxConcurrentRequests, plus the MaxConcurrentRequests of those limited
// by concurrency only, plus capUnlimited/len(cs) for each limited by
// neither; within [capMin, capMax], and never above the sum of the
// endpoints' MaxConcurrentRequests when each has one. No endpoint: capMin
// (the call's chunks fail on their own, as any call).
func adaptiveCap(cs []admission.Capacity) int {
	if len(cs) == 0 {
		return capMin
	}
	var rated, fixed float64
	conc, allConc := 0, true
	for _, c := range cs {
		mc := float64(c.MaxConcurrentRequests)
		switch {
		case c.RequestsPerSecond > 0:
			lat := c.Latency
			if lat <= 0 {
				lat = capPrior
			}
			x := capHeadroom * c.RequestsPerSecond * lat.Seconds()
			if c.BurstCapacity > 0 {
				x = min(x, float64(c.BurstCapacity))
			}
			if mc > 0 {
				x = min(x, mc)
			}
			rated += x
		case mc > 0:
			fixed += mc
		default:
			fixed += float64(capUnlimited) / float64(len(cs))
		}
		if c.MaxConcurrentRequests > 0 {
			conc += c.MaxConcurrentRequests
		} else {
			allConc = false
		}
	}
	// The epsilon keeps a product that is whole in decimals (100/s × 80
	// ms × 3) from rounding up to one more.
	n := int(math.Ceil(rated + fixed - 1e-9))
	n = min(max(n, capMin), capMax)
	if allConc {
		n = min(n, conc)
	}
	return n
}
