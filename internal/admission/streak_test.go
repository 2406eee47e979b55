package admission_test

// A failure streak counts failures in a row: a success resets it, across
// a rate limit and across the end of an ejection (a review, stop 34).

import (
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/pool"
)

// TestSuccessAfterThrottledResetsTheStreak: two failures (After 3),
// then a batch answered with one member's 429 and the others' answers:
// Throttled, then Done(success), as Throttled's doc says. The success is
// of a generation the 429 just bumped, so it was stale and did not reset
// the failure streak: after the pause, one failure ejected. Promised:
// docs/config.md:174,180 ("fails this many times in a row"), plan
// 001:104-105 ("A success ... resets both counts. A rate limit leaves both
// unchanged"), permit.go Throttled ("Done, which then records the
// answer").
func TestSuccessAfterThrottledResetsTheStreak(t *testing.T) {
	p, fc := newPoolWith(t, func(s *pool.Settings, _ *admission.Options) { s.Ejection = classic },
		ep("a", 0, endpoint.Limits{PauseAfterRateLimit: time.Second}))
	failOn(t, p, "a")
	failOn(t, p, "a")
	pm := p.TryAcquire(read)
	if pm == nil {
		t.Fatal("no permit")
	}
	pm.Throttled(0)
	pm.Done(success())
	fc.Advance(time.Second)
	failOn(t, p, "a") // one failure since the success
	if s := snapshotOf(t, p, "a"); s.State == endpoint.Ejected {
		t.Errorf("ejected after 1 failure following a success (After %d): %+v", classic.After, s)
	}
}

// TestSuccessInFlightAcrossARateLimitResetsTheStreak: the same
// with the 429 on another request: a success admitted before it and
// answered after was stale, so "in a row" spanned it.
func TestSuccessInFlightAcrossARateLimitResetsTheStreak(t *testing.T) {
	p, fc := newPoolWith(t, func(s *pool.Settings, _ *admission.Options) { s.Ejection = classic },
		ep("a", 0, endpoint.Limits{PauseAfterRateLimit: time.Second}))
	failOn(t, p, "a")
	failOn(t, p, "a")
	slow := p.TryAcquire(read)
	limited := p.TryAcquire(read)
	if slow == nil || limited == nil {
		t.Fatal("no permits")
	}
	limited.Done(rateLimited(0))
	slow.Done(success())
	fc.Advance(time.Second)
	failOn(t, p, "a")
	if s := snapshotOf(t, p, "a"); s.State == endpoint.Ejected {
		t.Errorf("ejected after 1 failure following a success (After %d): %+v", classic.After, s)
	}
}

// TestPanicSuccessAfterTheEjectionEndsResetsTheBackoff: a panic-mode
// permit's success that arrives once the ejection is over (any read
// turned the state Degraded, bumping the generation) was stale and left
// the backoff doubled. Plan 001:130: panic mode's "outcomes count as
// usual: a success resets both counts".
func TestPanicSuccessAfterTheEjectionEndsResetsTheBackoff(t *testing.T) {
	e := endpoint.Ejection{After: 1, Base: ms(100), Max: 10 * time.Second}
	p, fc := newPoolWith(t, func(s *pool.Settings, _ *admission.Options) { s.Ejection = e }, ep("a", 0, endpoint.Limits{}))
	failOn(t, p, "a") // ejected for 100 ms
	pm := p.TryAcquire(read)
	if pm == nil {
		t.Fatal("panic mode refused")
	}
	fc.Advance(ms(100))
	_ = snapshotOf(t, p, "a") // a read at the end: Ejected -> Degraded
	pm.Done(success())        // the endpoint answered
	failOn(t, p, "a")
	if s := snapshotOf(t, p, "a"); s.CooldownRemaining != e.Base {
		t.Errorf("ejection after a success: %v, want Base %v (the success should reset the backoff)", s.CooldownRemaining, e.Base)
	}
}
