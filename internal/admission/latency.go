package admission

import (
	"fmt"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/rolestate"
)

// Latency is what the pool knows of one method's recent attempt latency
// on one (endpoint, role): the input of the transport's adaptive attempt
// timeout and automatic hedge delay (plans/010-adaptive-timeouts.md).
//
// It comes from answered attempts only (successes, and answers the
// request caused, such as a JSON-RPC error): a timeout or a failure says
// only that the answer would have come later, if at all, and counting it
// at its length would raise the timeout it was cut by, round after
// round. Each sample's weight decays as e^(-age/10 s).
type Latency struct {
	// P95 and P99 are the recent 95th and 99th percentiles, each rounded
	// up to the bound of a log bucket (at most 25 % up); 0 when Source is
	// LatencyNone.
	P95, P99 time.Duration
	// Weight is the decayed weight of the samples behind them, about the
	// number of answers in the last 10 s.
	Weight float64
	// Source says whose answers P95 and P99 describe.
	Source LatencySource
}

// LatencySource says whose answers a Latency describes.
type LatencySource uint8

const (
	// LatencyNone: too few recent answers anywhere in the role (a
	// decayed weight under 20): no estimate.
	LatencyNone LatencySource = iota
	// LatencyOwn: the endpoint's own answers.
	LatencyOwn
	// LatencyRole: the answers of every endpoint of the role, this one
	// included, because this one has too few of its own (a new endpoint,
	// one the balancing seldom picks, a lower tier after a failover). A
	// fresh endpoint that hangs is then cut off at its peers' pace, not
	// after half the call's budget.
	LatencyRole
)

// String returns "none", "own" or "role".
func (s LatencySource) String() string {
	switch s {
	case LatencyNone:
		return "none"
	case LatencyOwn:
		return "own"
	case LatencyRole:
		return "role"
	}
	return fmt.Sprintf("latency-source(%d)", uint8(s))
}

// Latency returns the recent latency of the permit's method on its
// endpoint and role, at now on the pool's clock: the endpoint's own
// distribution when it weighs enough, else the role's, else none. A
// permit not acquired with Request.Timed (or whose endpoint already times
// rolestate.MaxTimedMethods other methods) reports none.
func (pm *Permit) Latency() Latency {
	if pm.lat == nil {
		return Latency{}
	}
	return pm.m.pool.latencyOf(pm.lat, pm.Role(), pm.lat.Method(), pm.m.pool.clock.Now())
}

// latencyOf is the rule of Permit.Latency: own, the endpoint's histogram
// of method (nil: none), when it weighs enough, else the role's.
func (p *Pool) latencyOf(own *rolestate.Histogram, role endpoint.Role, method string, now time.Time) Latency {
	if own != nil {
		if s := own.SummaryAt(now); s.Weight >= rolestate.MinHistogramWeight {
			return Latency{P95: s.P95, P99: s.P99, Weight: s.Weight, Source: LatencyOwn}
		}
	}
	return p.roleLatency(role, method, now)
}

// roleLatency is the latency of method over every endpoint of role at
// now, or none when the role's answers weigh too little.
func (p *Pool) roleLatency(role endpoint.Role, method string, now time.Time) Latency {
	var sum rolestate.Sum
	for _, m := range p.roles[role].ordered {
		if h := m.rt.TimingOf(method); h != nil {
			sum.Add(now, h)
		}
	}
	s := sum.Summary()
	if s.Weight < rolestate.MinHistogramWeight {
		return Latency{Weight: s.Weight}
	}
	return Latency{P95: s.P95, P99: s.P99, Weight: s.Weight, Source: LatencyRole}
}

// Latency returns what a permit of the named endpoint's role, timing
// method, would report as its Latency now (LatencyNone for an endpoint or
// role the pool does not hold). It is for observability and tests; it
// adds nothing to the pool.
func (p *Pool) Latency(name string, role endpoint.Role, method string) Latency {
	rs := p.roleSet(role)
	if rs == nil {
		return Latency{}
	}
	for _, m := range rs.ordered {
		if m.spec.Name == name {
			return p.latencyOf(m.rt.TimingOf(method), role, method, p.clock.Now())
		}
	}
	return Latency{}
}
