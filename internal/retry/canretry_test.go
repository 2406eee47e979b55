package retry

import (
	"testing"

	"github.com/solroute/solroute/retrypolicy"
)

// TestCanRetryAgreesWithNext: CanRetry says what Next would grant a
// retryable failure now, and takes nothing: MaxRetries, End, the floor
// (the asking call's own place in flight counted as given back) and the
// account each make it false exactly when Next refuses.
func TestCanRetryAgreesWithNext(t *testing.T) {
	cases := []struct {
		name        string
		floor, burz int
		maxRetries  int
	}{
		{"floor only", 1, 0, 3},
		{"account only", 0, 2, 3},
		{"nothing to pay with", 0, 0, 3},
		{"max retries", 5, 5, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := budget(tc.floor, tc.burz)
			s.MaxRetries = tc.maxRetries
			p := New(s)
			c := p.Begin()
			defer c.End()
			for range 5 {
				want := c.CanRetry()
				before := p.Usage()
				if again := c.CanRetry(); again != want || p.Usage() != before {
					t.Fatalf("CanRetry changed something: %v then %v, usage %+v then %+v", want, again, before, p.Usage())
				}
				if d := c.Next(failing); d.Retry != want {
					t.Fatalf("CanRetry %v, Next %+v (usage %+v)", want, d, before)
				}
			}
		})
	}
}

// TestCanRetrySeesOtherCalls: the floor's places held by other calls and
// the tokens they spent are not the asking call's to count; its own place
// in flight is (Next gives it back before it asks).
func TestCanRetrySeesOtherCalls(t *testing.T) {
	p := New(budget(1, 1))
	a, b, c := p.Begin(), p.Begin(), p.Begin()
	defer a.End()
	defer b.End()
	defer c.End()
	if d := a.Next(failing); !d.Retry { // the floor's one place
		t.Fatalf("first retry refused: %+v", d)
	}
	if !a.CanRetry() || !b.CanRetry() {
		t.Fatalf("a %v, b %v: both may retry, a on its own place, b on the token", a.CanRetry(), b.CanRetry())
	}
	if d := b.Next(failing); !d.Retry { // the account's one token
		t.Fatalf("second retry refused: %+v", d)
	}
	if c.CanRetry() || a.CanRetry() {
		t.Fatalf("c %v, a %v: neither may retry with the floor held by b and the account spent", c.CanRetry(), a.CanRetry())
	}
	if d := a.Next(failing); d.Retry || d.Rule != retrypolicy.RuleBudget {
		t.Fatalf("a's retry: %+v, want the budget's refusal", d)
	}
	ended := p.Begin()
	ended.End()
	if ended.CanRetry() {
		t.Fatal("an ended call may retry")
	}
}

// TestUnhedgeGivesThePlaceBack: a hedge that is not sent costs the budget
// nothing: Unhedge returns the floor's place or the token Hedge took, the
// call may ask for its hedge again, and End releases nothing twice.
func TestUnhedgeGivesThePlaceBack(t *testing.T) {
	for _, tc := range []struct {
		name        string
		floor, burz int
	}{{"floor", 1, 0}, {"token", 0, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(budget(tc.floor, tc.burz))
			c := p.Begin()
			start := p.Usage()
			if !c.Hedge(retrypolicy.Idempotent) {
				t.Fatal("hedge refused")
			}
			if p.Usage() == start {
				t.Fatal("the hedge took nothing")
			}
			c.Unhedge()
			if u := p.Usage(); u != start || c.Hedged() {
				t.Fatalf("after Unhedge: usage %+v, want %+v; hedged %v", u, start, c.Hedged())
			}
			c.Unhedge() // nothing held: nothing to give
			if u := p.Usage(); u != start {
				t.Fatalf("a second Unhedge changed the usage: %+v, want %+v", u, start)
			}
			if !c.Hedge(retrypolicy.Idempotent) {
				t.Fatal("hedge refused after Unhedge")
			}
			c.End()
			c.Unhedge() // after End: End released it
			if u := p.Usage(); u.ActiveCalls != 0 || u.ActiveRetries != 0 {
				t.Fatalf("after End: usage %+v, want no call and no retry", u)
			}
		})
	}
}
