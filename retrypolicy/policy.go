package retrypolicy

import (
	"math"
	"sync/atomic"
)

// Policy holds normalised Settings and the retry budget shared by every
// call of one client. It is safe for concurrent use. The zero Policy is
// valid and uses the defaults; New is the usual way to build one.
//
// The budget follows Envoy's retry budgets: at any moment, the retries in
// flight may number at most
//
//	max(BudgetMinRetries, floor(BudgetRatio × active calls))
//
// where a call is active from Begin to End, and a retry is in flight from
// the Call.Next that granted it to that call's next Next or End (that is,
// while the retried attempt runs). A counted retry takes a place; a
// transparent retry does not, since it reached no server (gRFC A6 exempts
// such retries from throttling) and MaxTransparentRetries bounds it.
// Both counters are atomics: admission is one compare-and-swap against the
// bound computed from the active calls at that instant, so the bound holds
// at every admission; calls that End afterwards can lower the bound below
// the retries already admitted, which then drain.
type Policy struct {
	s       Settings     // normalised by New; zero in a zero Policy (see settings)
	calls   atomic.Int64 // active calls: Begin .. End
	retries atomic.Int64 // budget places taken: granted .. next Next or End
}

// New normalises s and returns a Policy.
func New(s Settings) *Policy { return &Policy{s: s.Normalized()} }

// Settings returns the normalised settings the Policy decides with.
func (p *Policy) Settings() Settings { return *p.settings() }

// zeroPolicySettings are the settings of a zero Policy: the defaults.
var zeroPolicySettings = Settings{}.Normalized()

// settings returns the normalised settings: New's, or the defaults for a
// zero Policy (New always sets Jitter; only a zero Policy has none).
func (p *Policy) settings() *Settings {
	if p.s.Jitter == nil {
		return &zeroPolicySettings
	}
	return &p.s
}

// Begin starts one call: it counts as active in the retry budget until End.
func (p *Policy) Begin() *Call {
	p.calls.Add(1)
	return &Call{p: p}
}

// Usage is a snapshot of a retry budget.
type Usage struct {
	// ActiveCalls are calls between Begin and End.
	ActiveCalls int64
	// ActiveRetries are budget places taken by counted retries.
	ActiveRetries int64
	// Limit is the current bound on ActiveRetries; math.MaxInt64 when the
	// budget is disabled.
	Limit int64
}

// Usage returns the budget's current counters. They are read one by one,
// so under concurrent use they are only approximately consistent.
func (p *Policy) Usage() Usage {
	calls := p.calls.Load()
	return Usage{ActiveCalls: calls, ActiveRetries: p.retries.Load(), Limit: p.limit(calls)}
}

// limit is the budget bound for the given number of active calls.
func (p *Policy) limit(calls int64) int64 {
	s := p.settings()
	if s.BudgetRatio < 0 {
		return math.MaxInt64
	}
	share := s.BudgetRatio * float64(calls)
	if share >= math.MaxInt64/2 { // also +Inf; float64 → int64 would be undefined
		return math.MaxInt64
	}
	return max(int64(s.BudgetMinRetries), int64(share))
}

// takeRetry takes one budget place if the bound allows it.
func (p *Policy) takeRetry() bool {
	for {
		taken := p.retries.Load()
		if taken >= p.limit(p.calls.Load()) {
			return false
		}
		if p.retries.CompareAndSwap(taken, taken+1) {
			return true
		}
	}
}
