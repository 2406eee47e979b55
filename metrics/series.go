package metrics

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/retrypolicy"
)

// The event series' children are kept where the Observer finds them with
// a load or two and no allocation: per method (methodSeries) and per
// (endpoint, role) (endpointSeries), in arrays indexed by role, outcome
// and rule, each child made at its first use. A label value out of the
// arrays' range (a Role, Cause or Rule this package does not know yet)
// still counts, through the vec's own lookup.

const (
	// numRoles are the roles of package endpoint.
	numRoles = int(endpoint.RoleSend) + 1
	// numCauses are the causes of package retrypolicy, 0 ("ok") included;
	// TestArraysCoverEveryName checks that none is missing.
	numCauses = int(retrypolicy.RPCEndpoint) + 1
	// noEndpoint is the outcome index of a call that failed with no
	// cause: no endpoint could serve it.
	noEndpoint = numCauses
	// numOutcomes are the outcomes of a call: ok, a cause, no-endpoint.
	numOutcomes = numCauses + 1
	// numRules are the rules of package retrypolicy, 0 included.
	numRules = int(retrypolicy.RuleBusy) + 1
)

// outcomeName is the outcome label of a call's outcome index i.
func outcomeName(i int) string {
	if i == noEndpoint {
		return "no-endpoint"
	}
	return causeName(retrypolicy.Cause(i))
}

// causeName is the outcome label of an attempt: "ok" or the cause's name.
func causeName(c retrypolicy.Cause) string {
	if c == 0 {
		return "ok"
	}
	return c.String()
}

// label makes s a valid label value: a name that is not valid UTF-8
// would make client_golang panic.
func label(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// slot holds one child series, made at its first use.
type slot[T any] struct{ p atomic.Pointer[T] }

// get returns the child, calling mk to make it the first time; two
// goroutines making it at once get the same child from the vec anyway.
func (s *slot[T]) get(mk func() T) T {
	if p := s.p.Load(); p != nil {
		return *p
	}
	v := mk()
	s.p.CompareAndSwap(nil, &v)
	return *s.p.Load()
}

// methodSeries are one method label's children.
type methodSeries struct {
	label string
	// id indexes the method's attempts_total children in each
	// endpointSeries: 0 for "other", 1 onwards in the order the methods
	// got a label of their own (at most MaxMethods).
	id        int
	calls     [numRoles][numOutcomes]slot[prometheus.Counter]
	duration  [numRoles]slot[prometheus.Observer]
	ambiguous slot[prometheus.Counter]
	coalesced slot[prometheus.Counter]
	decisions [numRules]slot[prometheus.Counter]
}

func newMethodSeries(name string, id int) *methodSeries {
	return &methodSeries{label: label(name), id: id}
}

// call returns the calls_total child of (m, role, outcome index o).
func (m *methodSeries) call(c *Collector, role endpoint.Role, o int) prometheus.Counter {
	if int(role) >= numRoles {
		return c.calls.WithLabelValues(m.label, role.String(), outcomeName(o))
	}
	return m.calls[role][o].get(func() prometheus.Counter {
		return c.calls.WithLabelValues(m.label, role.String(), outcomeName(o))
	})
}

// callDuration returns the call_duration_seconds child of (m, role).
func (m *methodSeries) callDuration(c *Collector, role endpoint.Role) prometheus.Observer {
	if int(role) >= numRoles {
		return c.callDuration.WithLabelValues(m.label, role.String())
	}
	return m.duration[role].get(func() prometheus.Observer {
		return c.callDuration.WithLabelValues(m.label, role.String())
	})
}

// coalescedCalls returns the coalesced_calls_total child of m.
func (m *methodSeries) coalescedCalls(c *Collector) prometheus.Counter {
	return m.coalesced.get(func() prometheus.Counter { return c.coalesced.WithLabelValues(m.label) })
}

// ambiguousCalls returns the ambiguous_calls_total child of m.
func (m *methodSeries) ambiguousCalls(c *Collector) prometheus.Counter {
	return m.ambiguous.get(func() prometheus.Counter { return c.ambiguous.WithLabelValues(m.label) })
}

// decision returns the retry_decisions_total child of (m, r).
func (m *methodSeries) decision(c *Collector, r retrypolicy.Rule) prometheus.Counter {
	if int(r) >= numRules {
		return c.decisions.WithLabelValues(m.label, r.String())
	}
	return m.decisions[r].get(func() prometheus.Counter { return c.decisions.WithLabelValues(m.label, r.String()) })
}

// endpointKey names one (endpoint, role).
type endpointKey struct {
	name string
	role endpoint.Role
}

// causeSlots are the attempts_total children of one (endpoint, role,
// method), by outcome.
type causeSlots [numCauses]slot[prometheus.Counter]

// endpointSeries are one (endpoint, role)'s children: those of every
// attempt, made with the series, and those of attempts_total by method
// (indexed by methodSeries.id, grown copy-on-write: at most MaxMethods +
// 1) and outcome.
type endpointSeries struct {
	name, role string // the label values
	duration   prometheus.Observer
	wait       prometheus.Observer
	delay      prometheus.Observer
	hedges     prometheus.Counter
	inDoubt    slot[prometheus.Counter]

	mu       sync.Mutex // serialises the writers of attempts
	attempts atomic.Pointer[[]*causeSlots]
}

func (c *Collector) newEndpointSeries(k endpointKey) *endpointSeries {
	name, role := label(k.name), k.role.String()
	e := &endpointSeries{
		name:     name,
		role:     role,
		duration: c.attemptDuration.WithLabelValues(name, role),
		wait:     c.admissionWait.WithLabelValues(name, role),
		delay:    c.providerDelay.WithLabelValues(name, role),
		hedges:   c.hedges.WithLabelValues(name, role),
	}
	e.attempts.Store(&[]*causeSlots{})
	return e
}

// attempt returns the attempts_total child of (e, m, cause).
func (e *endpointSeries) attempt(c *Collector, m *methodSeries, cause retrypolicy.Cause) prometheus.Counter {
	mk := func() prometheus.Counter {
		return c.attempts.WithLabelValues(e.name, e.role, m.label, causeName(cause))
	}
	if int(cause) >= numCauses {
		return mk()
	}
	return e.causes(m)[cause].get(mk)
}

// causes returns the attempts_total children of (e, m), made at m's first
// attempt on e.
func (e *endpointSeries) causes(m *methodSeries) *causeSlots {
	if t := *e.attempts.Load(); m.id < len(t) && t[m.id] != nil {
		return t[m.id]
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	cur := *e.attempts.Load()
	if m.id < len(cur) && cur[m.id] != nil {
		return cur[m.id]
	}
	next := make([]*causeSlots, max(len(cur), m.id+1))
	copy(next, cur)
	next[m.id] = new(causeSlots)
	e.attempts.Store(&next)
	return next[m.id]
}

// inDoubtAttempts returns the in_doubt_attempts_total child of e's
// endpoint.
func (e *endpointSeries) inDoubtAttempts(c *Collector) prometheus.Counter {
	return e.inDoubt.get(func() prometheus.Counter { return c.inDoubtAttempts.WithLabelValues(e.name) })
}
