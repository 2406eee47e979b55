package admission

import (
	"time"

	"github.com/solroute/solroute/endpoint"
)

// Capacity is what the pool knows of one (endpoint, role) that bounds how
// many requests it can have in flight usefully: its configured limits and
// its latency now. A bulk read sizes its cap on chunks in flight from
// these (Little's law: rate × latency).
type Capacity struct {
	// Endpoint is the endpoint's Name.
	Endpoint string
	// RequestsPerSecond is the role's configured rate (0: unlimited).
	RequestsPerSecond float64
	// BurstCapacity is the role's bucket size, normalised (0 when
	// unlimited).
	BurstCapacity int
	// MaxConcurrentRequests is the role's configured cap on requests in
	// flight (0: unlimited).
	MaxConcurrentRequests int
	// Latency is the role's peak-EWMA latency estimate now, as the
	// balancing reads it (decayed toward 0 while no answer comes); 0
	// before any answer.
	Latency time.Duration
}

// Capacities returns the Capacity of each endpoint of role a request with
// no capabilities would be admitted to first: the most preferred tier
// holding an endpoint the cluster guard lets through and not ejected,
// those endpoints of it, in configuration order. When every such endpoint
// is ejected it returns the first tier the guard lets through, as the
// pool's panic mode would serve it; nil when the guard lets none through
// (or the pool has no endpoint of role). It reads atomics only and
// changes nothing.
func (p *Pool) Capacities(role endpoint.Role) []Capacity {
	rs := p.roleSet(role)
	if rs == nil {
		return nil
	}
	now := p.clock.Now()
	var panicTier []Capacity
	for _, g := range rs.tiers {
		var out, admissible []Capacity
		for _, m := range g.members {
			if !m.rt.Shared().Admissible(false) {
				continue
			}
			c := capacityOf(m, now)
			admissible = append(admissible, c)
			if m.rt.StateAt(now) != endpoint.Ejected {
				out = append(out, c)
			}
		}
		if len(out) > 0 {
			return out
		}
		if panicTier == nil {
			panicTier = admissible
		}
	}
	return panicTier
}

// capacityOf is m's Capacity at now.
func capacityOf(m *member, now time.Time) Capacity {
	l := m.rt.Limits()
	return Capacity{Endpoint: m.spec.Name, RequestsPerSecond: l.RequestsPerSecond,
		BurstCapacity: l.BurstCapacity, MaxConcurrentRequests: l.MaxConcurrentRequests, Latency: m.rt.LatencyAt(now)}
}
