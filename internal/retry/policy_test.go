package retry

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/solroute/solroute/retrypolicy"
)

// failing is an attempt every Idempotent call may retry (a 503).
var failing = Input{Outcome: retrypolicy.Outcome{Cause: retrypolicy.TemporaryHTTP, Dispatch: retrypolicy.Answered}, Class: retrypolicy.Idempotent, TimeLeft: noDeadline}

// neverSent is an attempt retried transparently.
var neverSent = Input{Outcome: retrypolicy.Outcome{Cause: retrypolicy.Connection, Dispatch: retrypolicy.NotDispatched}, Class: retrypolicy.Idempotent, TimeLeft: noDeadline}

func zeroJitter(time.Duration) time.Duration { return 0 }

// budget is DefaultSettings with a floor, a burst and no jitter.
func budget(floor, burst int) retrypolicy.Settings {
	s := defaults(zeroJitter)
	s.BudgetMinRetries, s.BudgetBurst = floor, burst
	return s
}

// TestBudgetAccount: a full account of BudgetBurst tokens, deposits of
// BudgetRatio per call capped at full, one token per retry above the floor.
func TestBudgetAccount(t *testing.T) {
	cases := []struct {
		name    string
		s       retrypolicy.Settings
		begun   int // calls begun before the retries, none ended
		granted int // retries granted in a row, none released
	}{
		{"defaults", retrypolicy.DefaultSettings(), 1000, 3 + 100},
		{"deposits never pass full", budget(3, 10), 1000, 3 + 10},
		{"no floor", budget(0, 10), 100, 10},
		{"larger floor", budget(20, 10), 100, 20 + 10},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.Jitter = zeroJitter
			p := New(tc.s)
			calls := make([]*Call, tc.begun)
			for i := range calls {
				calls[i] = p.Begin()
			}
			// Each call asks once, so no place is released on the way.
			granted := 0
			for _, c := range calls {
				d := c.Next(failing)
				if !d.Retry {
					if d.Rule != retrypolicy.RuleBudget {
						t.Fatalf("unexpected decision %+v", d)
					}
					break
				}
				granted++
			}
			if granted != tc.granted {
				t.Fatalf("granted %d in a row, want %d", granted, tc.granted)
			}
		})
	}
}

// TestBudgetSteps walks the budget through fixed steps, one goroutine.
func TestBudgetSteps(t *testing.T) {
	s := budget(3, 10)
	s.MaxRetries = 100
	p := New(s)
	calls := make([]*Call, 30) // deposits 6 tokens into a full account: still 10
	for i := range calls {
		calls[i] = p.Begin()
	}
	check := func(step string, calls, retries int64, tokens float64) {
		t.Helper()
		if u := p.Usage(); u != (retrypolicy.Usage{ActiveCalls: calls, ActiveRetries: retries, Tokens: tokens}) {
			t.Fatalf("%s: usage %+v, want {%d %d %v}", step, u, calls, retries, tokens)
		}
	}
	check("begun", 30, 0, 10)

	// 3 retries on the floor, then 10 paid with tokens, then none.
	for i, c := range calls {
		d := c.Next(failing)
		if want := i < 13; d.Retry != want {
			t.Fatalf("call %d: retry=%v (%s), want %v", i, d.Retry, d.Reason, want)
		}
		if i >= 13 && d.Rule != retrypolicy.RuleBudget {
			t.Fatalf("call %d: rule %v, want %v", i, d.Rule, retrypolicy.RuleBudget)
		}
	}
	check("thirteen retrying", 30, 13, 0)

	// A retrying call's next Next first gives its place back, but the
	// account is empty and 12 are still in flight: denied.
	if d := calls[0].Next(failing); d.Rule != retrypolicy.RuleBudget {
		t.Fatalf("second retry with an empty account: %+v", d)
	}
	check("holder denied", 30, 12, 0)

	// New calls refill the account: five calls, one token.
	for range 5 {
		calls = append(calls, p.Begin())
	}
	check("five more calls", 35, 12, 1)
	if d := calls[1].Next(failing); !d.Retry {
		t.Fatalf("retry paid by the refill: %+v", d)
	}
	check("token spent", 35, 12, 0)
	if got := calls[1].Retries(); got != (Retries{Counted: 2}) {
		t.Fatalf("retries %+v, want 2 counted", got)
	}

	// A denied call did not count a retry.
	if got := calls[20].Retries(); got != (Retries{}) {
		t.Fatalf("denied call counted %+v", got)
	}

	// A transparent retry needs nothing.
	if d := calls[20].Next(neverSent); !d.Retry || !d.Transparent {
		t.Fatalf("transparent retry with an empty budget: %+v", d)
	}
	check("transparent", 35, 12, 0)

	// Holders that stop give their places back; below the floor, retries
	// go again without tokens.
	for _, c := range calls[1:13] {
		if d := c.Next(Input{Outcome: retrypolicy.Outcome{Cause: retrypolicy.Request, Dispatch: retrypolicy.Answered}, Class: retrypolicy.Idempotent, TimeLeft: noDeadline}); d.Retry {
			t.Fatalf("request error retried: %+v", d)
		}
	}
	check("holders stopped", 35, 0, 0)
	for i, c := range calls[20:24] {
		if d := c.Next(failing); d.Retry != (i < 3) {
			t.Fatalf("below the floor, call %d: %+v", i, d)
		}
	}
	check("floor used", 35, 3, 0)

	for _, c := range calls {
		c.End()
		c.End() // idempotent
	}
	if d := calls[21].Next(failing); d.Rule != retrypolicy.RuleCallEnded {
		t.Fatalf("Next after End: %+v", d)
	}
	check("all ended", 0, 0, 0)
}

// TestBudgetConcurrentFirstFailure: many calls, all active, fail at once.
// No call releases a place before every call has asked, so exactly the
// floor plus a full account is granted whatever the scheduling.
func TestBudgetConcurrentFirstFailure(t *testing.T) {
	const n = 200
	const bound = 3 + 100 // the default floor and burst
	p := New(defaults(zeroJitter))
	calls := make([]*Call, n)
	for i := range calls {
		calls[i] = p.Begin()
	}
	var granted, denied atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, c := range calls {
		wg.Go(func() {
			<-start
			switch d := c.Next(failing); {
			case d.Retry:
				granted.Add(1)
			case d.Rule == retrypolicy.RuleBudget:
				denied.Add(1)
			default:
				t.Errorf("unexpected decision %+v", d)
			}
		})
	}
	close(start)
	wg.Wait()
	if granted.Load() != bound || denied.Load() != n-bound {
		t.Fatalf("granted %d, denied %d; want %d and %d", granted.Load(), denied.Load(), bound, n-bound)
	}
	if u := p.Usage(); u.ActiveRetries != bound {
		t.Fatalf("usage %+v", u)
	}
	for _, c := range calls {
		c.End()
	}
	if u := p.Usage(); u != (retrypolicy.Usage{}) {
		t.Fatalf("after End: %+v", u)
	}
}

// TestBudgetOutage simulates an outage in rounds: in every round each live
// call's attempt fails retryably and all live calls ask Next at once;
// calls told to stop then End, and new failing calls keep arriving. In
// every round the retries granted above the floor must be paid for: at
// most the account's default burst plus BudgetRatio of every call begun so
// far, less what earlier rounds spent.
func TestBudgetOutage(t *testing.T) {
	const maxRetries = 5
	s := defaults(zeroJitter)
	s.MaxRetries = maxRetries
	p := New(s)
	var live []*Call
	var begun, paid, budgetStops, total int
	for round := range 15 {
		arrivals := 25
		if round == 0 {
			arrivals = 100
		}
		for range arrivals {
			live = append(live, p.Begin())
		}
		begun += arrivals
		results := make([]retrypolicy.Decision, len(live))
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, c := range live {
			wg.Go(func() {
				<-start
				results[i] = c.Next(failing)
			})
		}
		close(start)
		wg.Wait()

		granted := 0
		next := live[:0]
		for i, c := range live {
			switch d := results[i]; {
			case d.Retry:
				granted++
				next = append(next, c)
			case d.Rule == retrypolicy.RuleBudget:
				budgetStops++
				c.End()
			case d.Rule == retrypolicy.RuleMaxRetries:
				c.End()
			default:
				t.Fatalf("round %d: unexpected decision %+v", round, d)
			}
		}
		// Every place was released before this round's Next: the floor
		// grants the default floor (3), the account pays the rest.
		paid += max(0, granted-3)
		if limit := 100 + begun*2/10; paid > limit {
			t.Fatalf("round %d: %d retries paid over %d calls begun, limit %d", round, paid, begun, limit)
		}
		if u := p.Usage(); u.ActiveRetries != int64(granted) || u.ActiveCalls != int64(len(next)) {
			t.Fatalf("round %d: usage %+v, want %d retries over %d calls", round, u, granted, len(next))
		}
		total += granted
		live = next
	}
	for _, c := range live {
		c.End()
	}
	if u := p.Usage(); u.ActiveCalls != 0 || u.ActiveRetries != 0 {
		t.Fatalf("after End: %+v", u)
	}
	if budgetStops == 0 {
		t.Fatal("the budget never stopped a retry")
	}
	if total > begun*2/10+100+15*3 { // the default ratio, burst and floor
		t.Fatalf("%d retries for %d calls: more than the ratio, the burst and the floor allow", total, begun)
	}
	t.Logf("%d calls, %d retries granted, %d stopped by the budget", begun, total, budgetStops)
}

func TestHedge(t *testing.T) {
	// No floor, a budget of 2 tokens: two hedges, then none.
	p := New(budget(0, 2))
	a, b, c := p.Begin(), p.Begin(), p.Begin()
	if a.Hedge(retrypolicy.NeverAfterDispatch) || a.Hedge(retrypolicy.NotApplicable) {
		t.Fatal("a hedge granted to a class other than Idempotent")
	}
	if !a.Hedge(retrypolicy.Idempotent) {
		t.Fatal("first hedge refused")
	}
	if a.Hedge(retrypolicy.Idempotent) {
		t.Fatal("a second hedge granted to one call")
	}
	if !b.Hedge(retrypolicy.Idempotent) || c.Hedge(retrypolicy.Idempotent) {
		t.Fatal("the budget of 2 did not grant exactly 2 hedges")
	}
	if u := p.Usage(); u.ActiveRetries != 2 {
		t.Fatalf("usage %+v, want 2 places held", u)
	}
	// The place is held until End, then given back.
	if d := a.Next(failing); d.Rule != retrypolicy.RuleBudget {
		t.Fatalf("a retry after two hedges spent the budget: %+v", d)
	}
	for _, x := range []*Call{a, b, c} {
		x.End()
	}
	if u := p.Usage(); u.ActiveRetries != 0 || u.ActiveCalls != 0 {
		t.Fatalf("after End: %+v", u)
	}
	if a.Hedge(retrypolicy.Idempotent) {
		t.Fatal("hedge granted after End")
	}
	if d := Stop(retrypolicy.RuleSuperseded); d.Retry || d.Rule != retrypolicy.RuleSuperseded || d.Reason == "" {
		t.Fatalf("RuleSuperseded.Stop() = %+v", d)
	}
}
