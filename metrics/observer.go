package metrics

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/solroute/solroute/transport"
)

// observer is the transport.Observer New adds to the client: it feeds the
// event series from AttemptEnded and CallEnded, and leaves the contexts
// alone.
type observer struct{ c *Collector }

var _ transport.Observer = observer{}

// CallStarted returns ctx: a call is counted when it ends.
func (o observer) CallStarted(ctx context.Context, _ transport.CallInfo) context.Context {
	return ctx
}

// AttemptStarted returns ctx: an attempt is counted when it ends, with
// its wait and whether it was a hedge.
func (o observer) AttemptStarted(ctx context.Context, _ transport.CallInfo, _ transport.Attempt) context.Context {
	return ctx
}

// AttemptEnded counts the attempt by endpoint, role, method and outcome,
// observes its duration, its admission wait and the provider's delay, and
// counts a hedge, a send to an endpoint in doubt and the decision that
// followed a failure.
func (o observer) AttemptEnded(_ context.Context, call transport.CallInfo, a transport.Attempt) {
	c := o.c
	e := c.endpoint(a.Endpoint, call.Role)
	m := c.method(&call)
	e.attempt(c, m, a.Cause).Inc()
	e.duration.Observe(a.Duration.Seconds())
	e.wait.Observe(a.Wait.Seconds())
	if a.ProviderDelay > 0 {
		e.delay.Observe(a.ProviderDelay.Seconds())
	}
	if a.Hedge {
		e.hedges.Inc()
	}
	if a.InDoubt {
		e.inDoubtAttempts(c).Inc()
	}
	if r := a.Decision.Rule; r != 0 {
		m.decision(c, r).Inc()
	}
}

// CallEnded counts the call by method, role and outcome, observes its
// duration and counts an ambiguous end and a call that shared another's
// answer.
func (o observer) CallEnded(_ context.Context, call transport.CallInfo, r transport.CallResult) {
	c := o.c
	m := c.method(&call)
	var calls prometheus.Counter
	switch {
	case r.Err == nil:
		calls = m.call(c, call.Role, 0)
	case r.Cause == 0:
		calls = m.call(c, call.Role, noEndpoint)
	case int(r.Cause) < numCauses:
		calls = m.call(c, call.Role, int(r.Cause))
	default: // a cause this package does not know yet
		calls = c.calls.WithLabelValues(m.label, call.Role.String(), r.Cause.String())
	}
	calls.Inc()
	m.callDuration(c, call.Role).Observe(r.Duration.Seconds())
	if r.Ambiguous {
		m.ambiguousCalls(c).Inc()
	}
	if call.Coalesced {
		m.coalescedCalls(c).Inc()
	}
}
