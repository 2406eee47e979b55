package admission_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/pool"
)

// classic is the ejection these tests walk through, spelt out so that they
// do not move with the defaults.
var classic = endpoint.Ejection{After: 3, Base: ms(500), Max: ms(30_000)}

// TestEjectionSendsEverythingToTheHealthyEndpoint: with two tier-0
// endpoints where "bad" fails every request, three consecutive failures
// eject it for 500 ms: every Acquire goes to "good" until the ejection
// ends, the snapshot shows it, and then "bad" gets its share again. (The
// failures are sent to bad on purpose: after its first one, balancing
// alone would keep bad out.)
func TestEjectionSendsEverythingToTheHealthyEndpoint(t *testing.T) {
	p, fc := newPoolWith(t, func(s *pool.Settings, _ *admission.Options) { s.Ejection = classic }, ep("bad", 0, endpoint.Limits{}), ep("good", 0, endpoint.Limits{}))
	onlyBad := read
	onlyBad.Avoid = []string{"good"}
	failures := 0
	for failures < 3 {
		now(t, p, onlyBad, "bad").Done(failure())
		failures++
		if s := snapshotOf(t, p, "bad"); (failures < 3) == (s.State == endpoint.Ejected) {
			t.Fatalf("after %d failures: state %v", failures, s.State)
		}
	}
	if s := snapshotOf(t, p, "bad"); s.State != endpoint.Ejected || s.CooldownRemaining != classic.Base || s.Failures != 3 {
		t.Fatalf("snapshot after 3 failures: %+v", s)
	}
	for range 10 {
		now(t, p, read, "good").Done(success())
	}
	fc.Advance(classic.Base - ms(1))
	if s := snapshotOf(t, p, "bad"); s.CooldownRemaining != ms(1) {
		t.Fatalf("cooldown 1 ms before the end: %v", s.CooldownRemaining)
	}
	for range 10 {
		now(t, p, read, "good").Done(success())
	}
	// Only the ejected endpoint is allowed: the DeadlineError says why.
	only := read
	only.Avoid = []string{"good"}
	only.Deadline = fc.Now()
	_, err := p.Acquire(context.Background(), only)
	var de *admission.DeadlineError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "bad: ejected 1ms left") {
		t.Fatalf("Acquire of the ejected endpoint: %v", err)
	}
	fc.Advance(ms(1))
	if s := snapshotOf(t, p, "bad"); s.State != endpoint.Degraded || s.CooldownRemaining != 0 {
		t.Fatalf("snapshot after the ejection: %+v", s)
	}
	// Admissible again (balancing, not the ejection, decides how much it
	// gets: its failures left a heavy latency penalty, plans/008).
	now(t, p, onlyBad, "bad").Done(success())
}

// TestEjectionOption: Settings.Ejection reaches every endpoint.
func TestEjectionOption(t *testing.T) {
	fc := clockwork.NewFakeClockAt(t0)
	p, err := admission.New([]endpoint.Spec{ep("a", 0, endpoint.Limits{})},
		pool.Settings{Ejection: endpoint.Ejection{After: 1, Base: ms(7)}}, admission.Options{Clock: fc})
	if err != nil {
		t.Fatal(err)
	}
	pm, err := p.Acquire(context.Background(), read)
	if err != nil {
		t.Fatal(err)
	}
	pm.Done(failure())
	if s := p.Snapshot()[0]; s.State != endpoint.Ejected || s.CooldownRemaining != ms(7) {
		t.Errorf("after one failure with After 1: %+v", s)
	}
	q, _ := admission.New([]endpoint.Spec{ep("a", 0, endpoint.Limits{})}, pool.Settings{}, admission.Options{Clock: fc})
	for range 10 {
		pm, err := q.Acquire(context.Background(), read)
		if err != nil {
			t.Fatal(err)
		}
		pm.Done(failure())
	}
	if s := q.Snapshot()[0]; s.State != endpoint.Degraded || s.CooldownRemaining != 0 {
		t.Errorf("after 10 failures with no ejection: %+v", s)
	}
}

// TestPanicModeWhenEveryCandidateIsEjected: ejection steers traffic to
// peers; with no peer left it must not refuse every call. A rate-limit
// cooldown is not an ejection and still blocks.
func TestPanicModeWhenEveryCandidateIsEjected(t *testing.T) {
	opts := func(s *pool.Settings, _ *admission.Options) { s.Ejection = endpoint.Ejection{After: 1, Base: ms(500)} }
	p, _ := newPoolWith(t, opts, ep("a", 0, endpoint.Limits{}), ep("b", 1, endpoint.Limits{}))
	failOn(t, p, "a")
	failOn(t, p, "b") // a is ejected: both ejected
	for _, s := range p.Snapshot() {
		if s.State != endpoint.Ejected {
			t.Fatalf("%s: %v, want ejected", s.Name, s.State)
		}
	}
	// Both ejected: admitted at once, by tier.
	now(t, p, read, "a").Done(success())

	// A rate-limited endpoint among the ejected is not admitted by panic.
	q, fc := newPoolWith(t, opts, ep("x", 0, endpoint.Limits{}), ep("y", 0, endpoint.Limits{}))
	first, second := now(t, q, read, "x"), now(t, q, read, "y")
	first.Done(rateLimited(0))
	second.Done(failure())
	only := read
	only.Avoid = []string{"y"} // only the rate-limited one
	only.Deadline = fc.Now().Add(ms(10))
	pd := start(context.Background(), q, only)
	pd.waitsFor(t, fc, ms(10))
	if err := pd.get(t).err; !errors.As(err, new(*admission.DeadlineError)) {
		t.Fatalf("Acquire of rate-limited x: %v, want a DeadlineError", err)
	}
}

// TestPanicModeKeepsTheRotation: with every endpoint of a tier ejected,
// panic mode spreads the calls round-robin instead of piling them on the
// tier's first endpoint.
func TestPanicModeKeepsTheRotation(t *testing.T) {
	p, _ := newPoolWith(t, func(s *pool.Settings, _ *admission.Options) { s.Ejection = endpoint.Ejection{After: 1, Base: ms(500)} },
		ep("a", 0, endpoint.Limits{}), ep("b", 0, endpoint.Limits{}), ep("c", 0, endpoint.Limits{}))
	for _, name := range []string{"a", "b", "c"} {
		failOn(t, p, name)
	}
	got := tally(t, p, 6)
	for _, s := range p.Snapshot() {
		if s.State != endpoint.Ejected {
			t.Fatalf("%s: %v, want still ejected (panic-mode successes do not end an ejection)", s.Name, s.State)
		}
	}
	if got["a"] != 2 || got["b"] != 2 || got["c"] != 2 {
		t.Errorf("panic mode over a, b, c: %v, want 2 each", got)
	}
}

// TestPanicThreshold: panic mode starts when ejections hold back more than
// half the candidates, even when the rest are blocked by something else;
// with half or fewer ejected, the call waits for the healthy ones.
func TestPanicThreshold(t *testing.T) {
	opts := func(s *pool.Settings, _ *admission.Options) { s.Ejection = endpoint.Ejection{After: 1, Base: ms(500)} }
	busy := endpoint.Limits{MaxConcurrentRequests: 1}

	// Two of three ejected, the third full: admitted by panic at once.
	p, _ := newPoolWith(t, opts, ep("a", 0, endpoint.Limits{}), ep("b", 0, endpoint.Limits{}), ep("c", 0, busy))
	failOn(t, p, "a")
	failOn(t, p, "b")
	held := now(t, p, read, "c")
	pm, err := p.Acquire(context.Background(), read)
	if err != nil || (pm.Endpoint() != "a" && pm.Endpoint() != "b") {
		t.Fatalf("two of three ejected, the third full: %v, %v; want a panic permit for a or b", pm, err)
	}
	pm.Done(success())
	held.Done(success())

	// One of two ejected, the other full: wait for the healthy one.
	q, fc := newPoolWith(t, opts, ep("x", 0, endpoint.Limits{}), ep("y", 0, busy))
	failOn(t, q, "x")
	held = now(t, q, read, "y")
	pd := start(context.Background(), q, read)
	pd.mustWait(t, fc, 1)
	held.Done(success())
	pd.permit(t, "y").Done(success())
}
