package retry

import (
	"sync/atomic"

	"github.com/solroute/solroute/retrypolicy"
)

// Policy holds Settings and the retry budget shared by every call of one
// client. It is safe for concurrent use. Build one with New.
//
// The budget bounds retries by the calls that were recently made, so that
// an outage cannot become a retry storm, while sporadic failures (one
// endpoint of three resetting connections: about a sixth of calls need one
// retry) are never refused. It is an account of tokens:
//
//   - it starts full, and holds at most BudgetBurst tokens;
//   - every call (Begin) deposits BudgetRatio of a token;
//   - a counted retry is granted while fewer than BudgetMinRetries retries
//     are in flight (the floor; no token spent), or else when it can spend
//     one whole token.
//
// Over any stretch of calls, the retries above the floor are therefore at
// most BudgetRatio × calls + BudgetBurst, the rule of gRPC's retry
// throttling (gRFC A6) with Envoy's retry-budget ratio and floor. A retry is
// in flight from the Call.Next that granted it to that call's next Next or
// End. A transparent retry takes nothing: it reached no server (gRFC A6
// exempts such retries from throttling) and Settings.TransparentRetries bounds
// it. Every counter is an atomic updated by compare-and-swap.
type Policy struct {
	s       retrypolicy.Settings // as given to New, Jitter set
	calls   atomic.Int64         // active calls: Begin .. End
	retries atomic.Int64         // counted retries in flight: granted .. next Next or End
	// spent is how far the account is below full, in thousandths of a
	// token, so that the zero value is a full account.
	spent atomic.Int64
}

// milli is one token in the account's unit.
const milli = 1000

// New returns a Policy deciding by s, taken as written (see Settings).
func New(s retrypolicy.Settings) *Policy {
	if s.Jitter == nil {
		s.Jitter = uniformJitter
	}
	return &Policy{s: s}
}

// Settings returns the settings the Policy decides with.
func (p *Policy) Settings() retrypolicy.Settings { return p.s }

// settings returns the settings the Policy decides with.
func (p *Policy) settings() *retrypolicy.Settings { return &p.s }

// Begin starts one call: it counts as active until End and deposits
// BudgetRatio of a token in the retry budget.
func (p *Policy) Begin() *Call {
	c := new(Call)
	p.Start(c)
	return c
}

// Start is Begin into c, a zero Call the caller keeps (in a larger
// allocation of its own: one allocation fewer per call).
func (p *Policy) Start(c *Call) {
	c.p = p
	p.calls.Add(1)
	if r := p.settings().BudgetRatio; r > 0 {
		deposit := int64(min(r, float64(p.settings().BudgetBurst)) * milli)
		for {
			old := p.spent.Load()
			if old == 0 || p.spent.CompareAndSwap(old, max(0, old-deposit)) {
				break
			}
		}
	}
}

// Usage returns the budget's current counters. They are read one by one,
// so under concurrent use they are only approximately consistent.
func (p *Policy) Usage() retrypolicy.Usage {
	return retrypolicy.Usage{ActiveCalls: p.calls.Load(), ActiveRetries: p.retries.Load(),
		Tokens: float64(int64(p.settings().BudgetBurst)*milli-p.spent.Load()) / milli}
}

// takeRetry grants one counted retry if the floor or the account allows
// it; token reports that it spent a token of the account (the floor's
// places cost none).
func (p *Policy) takeRetry() (ok, token bool) {
	s := p.settings()
	for floor := int64(s.BudgetMinRetries); ; {
		n := p.retries.Load()
		if n >= floor {
			break
		}
		if p.retries.CompareAndSwap(n, n+1) {
			return true, false
		}
	}
	for {
		old := p.spent.Load()
		if old+milli > int64(s.BudgetBurst)*milli {
			return false, false
		}
		if p.spent.CompareAndSwap(old, old+milli) {
			p.retries.Add(1)
			return true, true
		}
	}
}

// canTake reports whether takeRetry would grant a retry now, with held of
// the retries in flight counted as given back: the floor has room, or the
// account holds a whole token. It takes nothing.
func (p *Policy) canTake(held int64) bool {
	s := p.settings()
	if p.retries.Load()-held < int64(s.BudgetMinRetries) {
		return true
	}
	return p.spent.Load()+milli <= int64(s.BudgetBurst)*milli
}

// giveBack undoes one takeRetry whose retry was never made: the retry in
// flight ends and, when it spent one (token), the token returns to the
// account (which holds at most BudgetBurst: deposits since may have
// filled it).
func (p *Policy) giveBack(token bool) {
	p.retries.Add(-1)
	if !token {
		return
	}
	for {
		old := p.spent.Load()
		if p.spent.CompareAndSwap(old, max(0, old-milli)) {
			return
		}
	}
}
