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
	label     string
	calls     [numRoles][numOutcomes]slot[prometheus.Counter]
	duration  [numRoles]slot[prometheus.Observer]
	ambiguous slot[prometheus.Counter]
	coalesced slot[prometheus.Counter]
	decisions [numRules]slot[prometheus.Counter]
}

func newMethodSeries(name string) *methodSeries {
	return &methodSeries{label: label(name)}
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

// attemptKey is one attempts_total child of an endpointSeries.
type attemptKey struct {
	method *methodSeries
	cause  retrypolicy.Cause
}

// endpointSeries are one (endpoint, role)'s children: those of every
// attempt, made with the series, and those of attempts_total by method
// and outcome, added copy-on-write (at most (MaxMethods + 1) × causes).
type endpointSeries struct {
	name, role string // the label values
	duration   prometheus.Observer
	wait       prometheus.Observer
	delay      prometheus.Observer
	hedges     prometheus.Counter
	inDoubt    slot[prometheus.Counter]

	mu       sync.Mutex // serialises the writers of attempts
	attempts atomic.Pointer[map[attemptKey]prometheus.Counter]
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
	e.attempts.Store(&map[attemptKey]prometheus.Counter{})
	return e
}

// attempt returns the attempts_total child of (e, m, cause).
func (e *endpointSeries) attempt(c *Collector, m *methodSeries, cause retrypolicy.Cause) prometheus.Counter {
	k := attemptKey{m, cause}
	if ctr := (*e.attempts.Load())[k]; ctr != nil {
		return ctr
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	cur := *e.attempts.Load()
	if ctr := cur[k]; ctr != nil {
		return ctr
	}
	ctr := c.attempts.WithLabelValues(e.name, e.role, m.label, causeName(cause))
	next := make(map[attemptKey]prometheus.Counter, len(cur)+1)
	for k, v := range cur {
		next[k] = v
	}
	next[k] = ctr
	e.attempts.Store(&next)
	return ctr
}

// inDoubtAttempts returns the in_doubt_attempts_total child of e's
// endpoint.
func (e *endpointSeries) inDoubtAttempts(c *Collector) prometheus.Counter {
	return e.inDoubt.get(func() prometheus.Counter { return c.inDoubtAttempts.WithLabelValues(e.name) })
}
