package main

import (
	"errors"
	"sync"
	"time"

	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// demoStats collects what the demo's workload saw: one record per call
// from the callers, one per attempt from the transport's OnAttempt hook.
// Safe for concurrent use.
type demoStats struct {
	mu        sync.Mutex
	calls     int
	ok        int
	latencies []time.Duration // every call's, successful or not
	retries   int             // attempts followed by a retry
	byTier    map[int]int     // successful attempts by tier
	endpoints map[string]*endpointStats

	sends          int      // sendTransaction calls
	sendsLanded    int      // answered with the signature
	sendsAmbiguous int      // failed with transport.ErrAmbiguousDispatch
	signatures     []string // of every transaction sent
	ambiguous      int      // calls failed with ErrAmbiguousDispatch, any method
}

// endpointStats counts one endpoint's attempts.
type endpointStats struct {
	tier        int
	attempts    int
	ok          int
	rateLimited int
	failed      int // every other failure
	durations   []time.Duration
}

func newDemoStats() *demoStats {
	return &demoStats{byTier: make(map[int]int), endpoints: make(map[string]*endpointStats)}
}

// attempt is a transport.Settings.OnAttempt hook.
func (s *demoStats) attempt(_ string, a transport.Attempt) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ep := s.endpoints[a.Endpoint]
	if ep == nil {
		ep = &endpointStats{tier: a.Tier}
		s.endpoints[a.Endpoint] = ep
	}
	ep.attempts++
	ep.durations = append(ep.durations, a.Duration)
	switch a.Cause {
	case 0:
		ep.ok++
		s.byTier[a.Tier]++
	case retrypolicy.RateLimited:
		ep.rateLimited++
	default:
		ep.failed++
	}
	if a.Decision.Retry {
		s.retries++
	}
}

// call records one finished call.
func (s *demoStats) call(d time.Duration, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	s.latencies = append(s.latencies, d)
	switch {
	case err == nil:
		s.ok++
	case errors.Is(err, transport.ErrAmbiguousDispatch):
		s.ambiguous++
	}
}

// sent records one sendTransaction, counted apart from call.
func (s *demoStats) sent(signature string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sends++
	s.signatures = append(s.signatures, signature)
	switch {
	case err == nil:
		s.sendsLanded++
	case errors.Is(err, transport.ErrAmbiguousDispatch):
		s.sendsAmbiguous++
	}
}

// progress is a consistent copy of the running totals.
type progress struct {
	calls, ok, retries, fallbacks int
}

func (s *demoStats) progress() progress {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := progress{calls: s.calls, ok: s.ok, retries: s.retries}
	for tier, n := range s.byTier {
		if tier > 0 {
			p.fallbacks += n
		}
	}
	return p
}
