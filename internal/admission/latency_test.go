package admission_test

import (
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/retrypolicy"
)

// timed is a timed getBalance read pinned to endpoint name.
func timed(name string) admission.Request {
	r := read
	r.Timed, r.Endpoint = true, name
	return r
}

// answerAfter acquires a timed read on name, advances the clock by d and
// ends the permit with o.
func answerAfter(t *testing.T, p *admission.Pool, fc *clockwork.FakeClock, name string, d time.Duration, o retrypolicy.Outcome) {
	t.Helper()
	pm := now(t, p, timed(name), name)
	fc.Advance(d)
	pm.Done(o)
}

// bound is the latency a quantile falling among samples of d reports:
// d rounded up to its bucket's bound, at most 25 % up.
func bound(t *testing.T, got, d time.Duration) {
	t.Helper()
	if got <= d || got > d*5/4 {
		t.Fatalf("quantile %v, want just above %v", got, d)
	}
}

func TestTimedPermitsRecordAnswersOnly(t *testing.T) {
	p, fc := newPool(t, ep("a", 0, endpoint.Limits{}))
	// Fifteen answers are not enough to speak for the endpoint.
	for range 15 {
		answerAfter(t, p, fc, "a", ms(40), success())
	}
	if l := p.Latency("a", endpoint.RoleRead, "getBalance"); l.Source != admission.LatencyNone || l.P99 != 0 {
		t.Fatalf("after 15 answers: %+v, want none", l)
	}
	// An answer the request caused (a JSON-RPC error) is an answer.
	for range 25 {
		answerAfter(t, p, fc, "a", ms(40), retrypolicy.Outcome{Cause: retrypolicy.RPCApplication,
			Dispatch: retrypolicy.Answered, Fault: retrypolicy.RequestFault})
	}
	l := p.Latency("a", endpoint.RoleRead, "getBalance")
	if l.Source != admission.LatencyOwn || l.Weight < 20 {
		t.Fatalf("after 40 answers: %+v, want the endpoint's own", l)
	}
	bound(t, l.P99, ms(40))
	// Failures, timeouts included, are censored: they record nothing,
	// however long; so do untimed permits, releases, and other methods.
	timeout := retrypolicy.Outcome{Cause: retrypolicy.Timeout, Dispatch: retrypolicy.MaybeDispatched,
		Fault: retrypolicy.EndpointFault}
	for range 5 {
		answerAfter(t, p, fc, "a", ms(200), timeout)
	}
	pm := now(t, p, read, "a")
	fc.Advance(ms(100))
	pm.Done(success())
	pm = now(t, p, timed("a"), "a")
	fc.Advance(ms(100))
	pm.Release()
	slot := timed("a")
	slot.Method = "getSlot"
	pm = now(t, p, slot, "a")
	fc.Advance(ms(100))
	pm.Done(success())
	got := p.Latency("a", endpoint.RoleRead, "getBalance")
	if got.P95 != l.P95 || got.P99 != l.P99 {
		t.Fatalf("after failures and untimed answers: %+v, want %+v", got, l)
	}
	if got.Weight >= l.Weight {
		t.Fatalf("weight %v did not decay from %v", got.Weight, l.Weight)
	}
}

func TestLatencyFallsBackToTheRole(t *testing.T) {
	p, fc := newPool(t, ep("a", 0, endpoint.Limits{}), ep("b", 0, endpoint.Limits{}), ep("c", 1, endpoint.Limits{}))
	for range 15 {
		answerAfter(t, p, fc, "a", ms(10), success())
	}
	for range 15 {
		answerAfter(t, p, fc, "b", ms(30), success())
	}
	// Neither a nor b has 20 answers of its own; together they have: c,
	// with none, in another tier, is timed by its role's pace.
	for _, name := range []string{"a", "b", "c"} {
		l := p.Latency(name, endpoint.RoleRead, "getBalance")
		if l.Source != admission.LatencyRole {
			t.Fatalf("%s: %+v, want the role's", name, l)
		}
		bound(t, l.P99, ms(30))
	}
	// And a permit of c says the same.
	pm := now(t, p, timed("c"), "c")
	if l := pm.Latency(); l.Source != admission.LatencyRole {
		t.Fatalf("c's permit: %+v", l)
	}
	pm.Release()
	// An untimed permit knows nothing; nor does an unknown endpoint or
	// method.
	pm = now(t, p, read, "a")
	if l := pm.Latency(); l != (admission.Latency{}) {
		t.Fatalf("untimed permit: %+v", l)
	}
	pm.Release()
	if l := p.Latency("nobody", endpoint.RoleRead, "getBalance"); l != (admission.Latency{}) {
		t.Fatalf("unknown endpoint: %+v", l)
	}
	if l := p.Latency("a", endpoint.RoleRead, "getSlot"); l.Source != admission.LatencyNone {
		t.Fatalf("a method never timed: %+v", l)
	}
	if l := p.Latency("a", endpoint.RoleSend, "getBalance"); l.Source != admission.LatencyNone {
		t.Fatalf("a role not served: %+v", l)
	}
	// Ten decay times later the role's answers weigh nothing.
	fc.Advance(100 * time.Second)
	if l := p.Latency("c", endpoint.RoleRead, "getBalance"); l.Source != admission.LatencyNone {
		t.Fatalf("after 100 s: %+v, want none", l)
	}
}

func TestOvertakenIsSlowNotFailing(t *testing.T) {
	p, fc := newPool(t, ep("a", 0, endpoint.Limits{}))
	for range 22 {
		answerAfter(t, p, fc, "a", ms(10), success())
	}
	before := p.Latency("a", endpoint.RoleRead, "getBalance")
	pm := now(t, p, timed("a"), "a")
	fc.Advance(ms(60))
	pm.Overtaken()
	pm.Done(success()) // the first outcome counts
	s := snapshotOf(t, p, "a")
	if s.Failures != 1 || s.Successes != 22 || s.State != endpoint.Degraded {
		t.Fatalf("after one overtaken attempt: %+v, want one failure", s)
	}
	if s.DoubtRemaining != 0 {
		t.Fatalf("in doubt for %v after being overtaken", s.DoubtRemaining)
	}
	// The balancing saw a 60 ms answer, not the failure penalty.
	if s.Latency != ms(60) {
		t.Fatalf("latency estimate %v, want the 60 ms elapsed", s.Latency)
	}
	if got := p.Latency("a", endpoint.RoleRead, "getBalance"); got.P99 != before.P99 {
		t.Fatalf("p99 %v after an overtaken attempt, want %v", got.P99, before.P99)
	}
	// Five in a row eject it.
	for range 4 {
		pm := now(t, p, timed("a"), "a")
		pm.Overtaken()
	}
	if s := snapshotOf(t, p, "a"); s.State != endpoint.Ejected {
		t.Fatalf("after five overtaken attempts: %v, want ejected", s.State)
	}
}
