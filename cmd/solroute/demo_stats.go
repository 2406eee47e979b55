package main

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// demoStats collects what the demo's workload saw: one record per call
// from the callers, one per attempt from an Observer (onAttempt).
// Every call started is recorded once, with one outcome, so the summary's
// totals add up: calls = ok + failed + interrupted, and the sends are a
// part of the calls. Safe for concurrent use.
type demoStats struct {
	mu          sync.Mutex
	calls       int
	ok          int
	failed      int // ambiguous included
	interrupted int
	latencies   []time.Duration // every finished call's, successful or not
	retries     int             // attempts followed by a retry
	byTier      map[int]int     // successful attempts by tier
	endpoints   map[string]*endpointStats
	reads       int      // read attempts (every method but sendTransaction)
	lag         *lagMark // set when an endpoint fell behind; nil before

	sends            int      // sendTransaction calls, a part of calls
	sendsLanded      int      // answered with the signature
	sendsAmbiguous   int      // failed with solroute.ErrAmbiguousDispatch
	sendsFailed      int      // failed otherwise
	sendsInterrupted int      // cut short by the interrupt
	signatures       []string // of every transaction sent, interrupted ones included
	ambiguous        int      // calls failed with ErrAmbiguousDispatch, any method

	// stallCalls and stallOK count the calls that started while the
	// chain stalled, and those of them that succeeded.
	stallCalls, stallOK int
}

// outcome is how a call ended, as the summary counts it.
type outcome int

const (
	// outcomeOK: the call succeeded.
	outcomeOK outcome = iota
	// outcomeAmbiguous: the call failed with solroute.ErrAmbiguousDispatch:
	// it may have reached a server, and was reported, not resent. That is
	// what the caller was told, interrupted or not.
	outcomeAmbiguous
	// outcomeFailed: any other failure.
	outcomeFailed
	// outcomeInterrupted: the call failed once the run was interrupted
	// (Ctrl-C): its error says nothing of the pool.
	outcomeInterrupted
)

// outcomeOf classifies a finished call; interrupted reports whether the
// run's context had ended when it returned.
func outcomeOf(err error, interrupted bool) outcome {
	switch {
	case err == nil:
		return outcomeOK
	case errors.Is(err, solroute.ErrAmbiguousDispatch):
		return outcomeAmbiguous
	case interrupted:
		return outcomeInterrupted
	}
	return outcomeFailed
}

// endpointStats counts one endpoint's attempts.
type endpointStats struct {
	tier        int
	attempts    int
	ok          int
	rateLimited int
	failed      int // every other failure
	reads       int // attempts of a read method
	durations   []time.Duration
}

// lagMark is the moment an endpoint fell behind: the read attempts
// counted by then, its own and all.
type lagMark struct {
	endpoint string
	slots    uint64        // how far behind it fell
	at       time.Duration // into the run
	reads    int           // its read attempts by then
	allReads int           // every endpoint's
}

func newDemoStats() *demoStats {
	return &demoStats{byTier: make(map[int]int), endpoints: make(map[string]*endpointStats)}
}

// attempt receives each attempt, through onAttempt (an Observer).
func (s *demoStats) attempt(_ context.Context, method string, a transport.Attempt) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ep := s.endpoints[a.Endpoint]
	if ep == nil {
		ep = &endpointStats{tier: a.Tier}
		s.endpoints[a.Endpoint] = ep
	}
	ep.attempts++
	ep.durations = append(ep.durations, a.Duration)
	if method != "sendTransaction" {
		ep.reads++
		s.reads++
	}
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

// markLag records that endpoint fell slots behind, at into the run: the
// read attempts counted from now on are those that may have met the lag.
func (s *demoStats) markLag(endpoint string, slots uint64, at time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := &lagMark{endpoint: endpoint, slots: slots, at: at, allReads: s.reads}
	if ep := s.endpoints[endpoint]; ep != nil {
		m.reads = ep.reads
	}
	s.lag = m
}

// call records one finished call that took d and ended with o. signature
// is the transaction's for a sendTransaction, "" for any other call.
func (s *demoStats) call(d time.Duration, signature string, o outcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	switch o {
	case outcomeOK:
		s.ok++
	case outcomeAmbiguous:
		s.failed++
		s.ambiguous++
	case outcomeFailed:
		s.failed++
	case outcomeInterrupted:
		s.interrupted++
	}
	if o != outcomeInterrupted {
		s.latencies = append(s.latencies, d)
	}
	if signature == "" {
		return
	}
	s.sends++
	s.signatures = append(s.signatures, signature)
	switch o {
	case outcomeOK:
		s.sendsLanded++
	case outcomeAmbiguous:
		s.sendsAmbiguous++
	case outcomeFailed:
		s.sendsFailed++
	case outcomeInterrupted:
		s.sendsInterrupted++
	}
}

// stallCall records that a finished call, already counted by call, had
// started while the chain stalled.
func (s *demoStats) stallCall(o outcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o == outcomeInterrupted {
		return
	}
	s.stallCalls++
	if o == outcomeOK {
		s.stallOK++
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
