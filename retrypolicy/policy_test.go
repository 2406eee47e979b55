package retrypolicy

import (
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// failing is an attempt every Idempotent call may retry (a 503).
var failing = Attempt{Cause: TemporaryHTTP, Dispatch: Answered, Class: Idempotent, TimeLeft: NoDeadline}

// neverSent is an attempt retried transparently.
var neverSent = Attempt{Cause: Connection, Dispatch: NotDispatched, Class: Idempotent, TimeLeft: NoDeadline}

func zeroJitter(time.Duration) time.Duration { return 0 }

func TestBudgetLimit(t *testing.T) {
	cases := []struct {
		s     Settings
		calls int64
		want  int64
	}{
		{Settings{}, 0, 3},
		{Settings{}, 10, 3},
		{Settings{}, 19, 3},
		{Settings{}, 20, 4},
		{Settings{}, 29, 5}, // floor(5.8)
		{Settings{}, 100, 20},
		{Settings{BudgetMinRetries: -1}, 4, 0},
		{Settings{BudgetMinRetries: 10, BudgetRatio: 0.5}, 30, 15},
		{Settings{BudgetRatio: -1}, 5, math.MaxInt64},
		{Settings{BudgetRatio: math.Inf(1)}, 5, math.MaxInt64},
		{Settings{BudgetRatio: 1e300}, 5, math.MaxInt64},
	}
	for _, tc := range cases {
		p := New(tc.s)
		if got := p.limit(tc.calls); got != tc.want {
			t.Errorf("%+v with %d calls: limit %d, want %d", tc.s, tc.calls, got, tc.want)
		}
	}
}

// TestBudgetSteps walks the budget through fixed steps, one goroutine.
func TestBudgetSteps(t *testing.T) {
	p := New(Settings{Jitter: zeroJitter, MaxRetries: 100})
	calls := make([]*Call, 30) // limit max(3, 0.2×30) = 6
	for i := range calls {
		calls[i] = p.Begin()
	}
	check := func(step string, calls, retries, limit int64) {
		t.Helper()
		if u := p.Usage(); u != (Usage{calls, retries, limit}) {
			t.Fatalf("%s: usage %+v, want {%d %d %d}", step, u, calls, retries, limit)
		}
	}
	check("begun", 30, 0, 6)

	for i, c := range calls {
		d := c.Next(failing)
		if want := i < 6; d.Retry != want {
			t.Fatalf("call %d: retry=%v (%s), want %v", i, d.Retry, d.Reason, want)
		}
		if i >= 6 && d.Rule != RuleBudget {
			t.Fatalf("call %d: rule %v, want %v", i, d.Rule, RuleBudget)
		}
	}
	check("six retrying", 30, 6, 6)

	// A retrying call's next Next first gives its place back, so it can
	// retry again while the budget stays full.
	if d := calls[0].Next(failing); !d.Retry {
		t.Fatalf("second retry of a holder: %+v", d)
	}
	check("holder retried again", 30, 6, 6)
	if got := calls[0].Retries(); got != (Retries{Counted: 2}) {
		t.Fatalf("retries %+v, want 2 counted", got)
	}

	// A denied call did not count a retry.
	if got := calls[10].Retries(); got != (Retries{}) {
		t.Fatalf("denied call counted %+v", got)
	}

	// A transparent retry needs no place.
	if d := calls[10].Next(neverSent); !d.Retry || !d.Transparent {
		t.Fatalf("transparent retry with a full budget: %+v", d)
	}
	check("transparent", 30, 6, 6)

	// A holder that stops (here: a request error) gives its place back.
	if d := calls[1].Next(Attempt{Cause: Request, Dispatch: Answered, Class: Idempotent, TimeLeft: NoDeadline}); d.Retry {
		t.Fatalf("request error retried: %+v", d)
	}
	check("holder stopped", 30, 5, 6)
	if d := calls[11].Next(failing); !d.Retry {
		t.Fatalf("freed place not granted: %+v", d)
	}
	check("place reused", 30, 6, 6)

	// Ending calls shrinks the bound; holders drain, new retries wait.
	for _, c := range calls[12:] {
		c.End()
	}
	check("18 ended", 12, 6, 3)
	if d := calls[12].Next(failing); d.Rule != RuleCallEnded {
		t.Fatalf("Next after End: %+v", d)
	}
	if d := calls[13].Next(failing); d.Rule != RuleCallEnded {
		t.Fatalf("Next after End: %+v", d)
	}
	if d := calls[9].Next(failing); d.Rule != RuleBudget {
		t.Fatalf("over the shrunk bound: %+v", d)
	}
	for _, c := range calls {
		c.End()
		c.End() // idempotent
	}
	check("all ended", 0, 0, 3)
}

func TestBudgetDisabled(t *testing.T) {
	p := New(Settings{Jitter: zeroJitter, BudgetRatio: -1})
	var calls []*Call
	for range 50 {
		c := p.Begin()
		calls = append(calls, c)
		if d := c.Next(failing); !d.Retry {
			t.Fatalf("disabled budget denied: %+v", d)
		}
	}
	if u := p.Usage(); u.ActiveRetries != 50 || u.Limit != math.MaxInt64 {
		t.Fatalf("usage %+v", u)
	}
	for _, c := range calls {
		c.End()
	}
	if u := p.Usage(); u.ActiveCalls != 0 || u.ActiveRetries != 0 {
		t.Fatalf("after End: %+v", u)
	}
}

func TestZeroPolicyUsesDefaults(t *testing.T) {
	var p Policy
	c := p.Begin()
	defer c.End()
	a := failing
	a.TimeLeft = DefaultInitialBackoff + 1 // any draw in [0, 100ms] fits
	for i := range DefaultMaxRetries {
		d := c.Next(a)
		if !d.Retry || d.Delay < 0 || d.Delay > DefaultInitialBackoff<<i {
			t.Fatalf("retry %d: %+v", i, d)
		}
		a.TimeLeft = NoDeadline
	}
	if d := c.Next(a); d.Rule != RuleMaxRetries {
		t.Fatalf("after %d retries: %+v", DefaultMaxRetries, d)
	}
	if s := p.Settings(); s.MaxRetries != DefaultMaxRetries || s.Jitter == nil {
		t.Fatalf("zero Policy settings %+v", s)
	}
}

// TestBudgetConcurrentFirstFailure: many calls, all active, fail at once.
// No call releases a place before every call has asked, so exactly the
// bound is granted whatever the scheduling.
func TestBudgetConcurrentFirstFailure(t *testing.T) {
	const n = 200 // limit max(3, 0.2×200) = 40
	p := New(Settings{Jitter: zeroJitter})
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
			case d.Rule == RuleBudget:
				denied.Add(1)
			default:
				t.Errorf("unexpected decision %+v", d)
			}
		})
	}
	close(start)
	wg.Wait()
	if granted.Load() != 40 || denied.Load() != n-40 {
		t.Fatalf("granted %d, denied %d; want 40 and %d", granted.Load(), denied.Load(), n-40)
	}
	if u := p.Usage(); u.ActiveRetries != 40 {
		t.Fatalf("usage %+v", u)
	}
	for _, c := range calls {
		c.End()
	}
	if u := p.Usage(); u != (Usage{0, 0, 3}) {
		t.Fatalf("after End: %+v", u)
	}
}

// TestBudgetOutage simulates an outage in rounds: in every round each live
// call's attempt fails retryably and all live calls ask Next at once;
// calls told to stop then End, and new failing calls keep arriving. The
// retries granted in a round (the retried attempts then in flight) must
// never exceed max(3, 20 % of the calls active during that round).
func TestBudgetOutage(t *testing.T) {
	const maxRetries = 5
	p := New(Settings{Jitter: zeroJitter, MaxRetries: maxRetries})
	var live []*Call
	var total, budgetStops int
	for round := range 15 {
		arrivals := 25
		if round == 0 {
			arrivals = 100
		}
		for range arrivals {
			live = append(live, p.Begin())
		}
		bound := max(3, len(live)*2/10)
		results := make([]Decision, len(live))
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
			case d.Rule == RuleBudget:
				budgetStops++
				c.End()
			case d.Rule == RuleMaxRetries:
				c.End()
			default:
				t.Fatalf("round %d: unexpected decision %+v", round, d)
			}
		}
		if granted > bound {
			t.Fatalf("round %d: %d retries in flight over %d active calls, bound %d", round, granted, len(live), bound)
		}
		if round == 0 && granted != bound {
			t.Fatalf("round 0: %d granted, want exactly the bound %d", granted, bound)
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
	t.Logf("%d retries granted, %d stopped by the budget", total, budgetStops)
}
