package retry

import (
	"testing"
	"time"

	"github.com/solroute/solroute/retrypolicy"
)

// shortBy is a read refused (-32016) gap slots short of its floor.
func shortBy(gap uint64, elsewhere bool) Input {
	return Input{Outcome: retrypolicy.Outcome{Cause: retrypolicy.NodeBehind, Dispatch: retrypolicy.Answered, RPCCode: -32016, Fault: retrypolicy.LocalFault, NotYet: gap},
		Class: retrypolicy.Idempotent, ElsewhereAvailable: true, SlotElsewhere: elsewhere, TimeLeft: noDeadline}
}

// TestNotYetWhereTheSlotIs (issue 20, N2): a read a few slots short of its
// floor goes at once to an endpoint not known to be short too, and
// otherwise waits the gap times the slot time; the deadline bounds the
// wait.
func TestNotYetWhereTheSlotIs(t *testing.T) {
	s := defaults(exact)
	d := Decide(s, shortBy(3, true), Retries{})
	if !d.Retry || d.Rule != retrypolicy.RuleNotYet || !d.NotYet || d.Delay != 0 || d.OtherEndpoint || d.Reason != notYetElsewhere {
		t.Fatalf("slot elsewhere: %+v, want an uncounted retry at once", d)
	}
	d = Decide(s, shortBy(3, false), Retries{})
	if !d.Retry || d.Rule != retrypolicy.RuleNotYet || d.Delay != 1200*time.Millisecond || d.Reason != notYetLater {
		t.Fatalf("no endpoint at the slot: %+v, want a retry after 3 slots (1.2 s)", d)
	}
	a := shortBy(3, false)
	a.TimeLeft = 1200 * time.Millisecond
	if d := Decide(s, a, Retries{}); d.Retry || d.Rule != retrypolicy.RuleDeadline {
		t.Fatalf("the wait reaches the deadline: %+v, want a deadline stop", d)
	}
	a = shortBy(1, true)
	a.TimeLeft = 0
	if d := Decide(s, a, Retries{}); d.Retry || d.Rule != retrypolicy.RuleDeadline {
		t.Fatalf("no time left: %+v, want a deadline stop", d)
	}
	a = shortBy(1<<62, false) // no overflow: capped at maxWait
	if d := Decide(s, a, Retries{}); !d.Retry || d.Delay != maxWait || maxWait != time.Hour {
		t.Fatalf("a huge gap: %+v, want a wait of 1h", d)
	}
}

// TestNotYetWaitsForTheNearest: refused 5 slots short (2 s) with 1 s
// left, the read stopped at the deadline though another endpoint it may
// use was 1 slot short: the wait is for the nearest (400 ms). A nearest
// farther than the refuser changes nothing.
func TestNotYetWaitsForTheNearest(t *testing.T) {
	s := defaults(exact)
	a := shortBy(5, false)
	a.SlotNearest, a.TimeLeft = 1, time.Second
	if d := Decide(s, a, Retries{}); !d.Retry || d.Rule != retrypolicy.RuleNotYet || d.Delay != 400*time.Millisecond {
		t.Fatalf("nearest 1 short, 1 s left: %+v, want a retry after one slot", d)
	}
	a = shortBy(2, false)
	a.SlotNearest = 4
	if d := Decide(s, a, Retries{}); d.Delay != 800*time.Millisecond {
		t.Fatalf("nearest farther than the refuser: %+v, want the refuser's 2 slots", d)
	}
}

// TestNotYetIsBoundedOtherwise: uncounted against MaxRetries, up to
// maxNotYetRetries a call; past them, or for a read behind by more than
// a few slots (NotYet 0), the ordinary counted retry; none at all when
// MaxRetries is 0.
func TestNotYetIsBoundedOtherwise(t *testing.T) {
	s := defaults(exact)
	for n := range maxNotYetRetries {
		if d := Decide(s, shortBy(2, true), Retries{Counted: s.MaxRetries, NotYet: n}); d.Rule != retrypolicy.RuleNotYet {
			t.Fatalf("not-yet retry %d with MaxRetries used up: %+v", n, d)
		}
	}
	if d := Decide(s, shortBy(2, true), Retries{NotYet: maxNotYetRetries}); d.Rule != retrypolicy.RuleRetry || d.NotYet {
		t.Fatalf("past the cap: %+v, want a counted retry", d)
	}
	behind := shortBy(0, true)
	behind.Fault = retrypolicy.EndpointFault
	if d := Decide(s, behind, Retries{}); d.Rule != retrypolicy.RuleRetry || d.NotYet {
		t.Fatalf("behind by more than a few slots: %+v, want a counted retry", d)
	}
	s.MaxRetries = 0
	if d := Decide(s, shortBy(2, true), Retries{}); d.Retry || d.Rule != retrypolicy.RuleMaxRetries {
		t.Fatalf("MaxRetries 0: %+v, want no retry", d)
	}
	send := shortBy(2, true)
	send.Class = retrypolicy.NeverAfterDispatch
	if d := Decide(defaults(exact), send, Retries{}); d.Rule != retrypolicy.RuleRetry {
		t.Fatalf("a send: %+v, want the ordinary rule", d)
	}
}

// TestNotYetSpendsNoBudget: with the budget spent, a not-yet retry is
// still granted and takes no place, while any other retry is refused; the
// call counts it apart.
func TestNotYetSpendsNoBudget(t *testing.T) {
	p := New(budget(0, 0)) // no floor, no token
	c := p.Begin()
	defer c.End()
	if d := c.Next(failing); d.Retry || d.Rule != retrypolicy.RuleBudget {
		t.Fatalf("a 503 with the budget spent: %+v, want a budget stop", d)
	}
	for n := 1; n <= maxNotYetRetries; n++ {
		d := c.Next(shortBy(1, true))
		if !d.Retry || d.Rule != retrypolicy.RuleNotYet {
			t.Fatalf("not-yet %d with the budget spent: %+v", n, d)
		}
		if got := c.Retries(); got.NotYet != n || got.Counted != 0 {
			t.Fatalf("retries after not-yet %d: %+v", n, got)
		}
		if u := p.Usage(); u.ActiveRetries != 0 {
			t.Fatalf("a not-yet retry took a budget place: %+v", u)
		}
	}
	if d := c.Next(shortBy(1, true)); d.Retry || d.Rule != retrypolicy.RuleBudget {
		t.Fatalf("past the cap, with the budget spent: %+v, want a budget stop", d)
	}
}
