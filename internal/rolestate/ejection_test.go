package rolestate

import (
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
)

// classic is the ejection the state tests below walk through, spelt out so
// that they do not move with the defaults.
var classic = endpoint.Ejection{After: 3, Base: 500 * time.Millisecond, Max: 30 * time.Second}

// ejector drives one Runtime through admissions and outcomes on a fake
// time line.
type ejector struct {
	t   *testing.T
	r   *Runtime
	now time.Time
}

func newEjector(t *testing.T, e endpoint.Ejection) *ejector {
	return &ejector{t: t, r: newRuntime(t, endpoint.Limits{PauseAfterRateLimit: 10 * time.Second}, Options{Ejection: e}), now: t0}
}

// outcome admits one request at the current instant and reports "fail" or
// "ok" for it.
func (e *ejector) outcome(kinds ...string) {
	e.t.Helper()
	e.report(e.r.AdmitAt, kinds)
}

// panicOutcome is outcome with admissions through AdmitEjectedAt.
func (e *ejector) panicOutcome(kinds ...string) {
	e.t.Helper()
	e.report(e.r.AdmitEjectedAt, kinds)
}

func (e *ejector) report(admit func(now, deadline time.Time) (Admission, Block, bool), kinds []string) {
	e.t.Helper()
	for _, k := range kinds {
		a, b, ok := admit(e.now, time.Time{})
		if !ok {
			e.t.Fatalf("+%v: admission refused: %s", e.now.Sub(t0), b.Describe(e.now))
		}
		switch k {
		case "fail":
			e.r.FailedAt(e.now, a.Generation)
		case "ok":
			e.r.SucceededAt(e.now, a.Generation)
		default:
			e.t.Fatalf("unknown outcome %q", k)
		}
		e.r.Release(a)
	}
}

// ejectedFor checks that the Runtime is ejected for exactly d from now: a
// nanosecond short of d it is still refused, at d it is admitted again and
// Degraded. It leaves the time line at the end of the ejection.
func (e *ejector) ejectedFor(d time.Duration) {
	e.t.Helper()
	if s := e.r.SnapshotAt(e.now); s.State != endpoint.Ejected || s.CooldownRemaining != d {
		e.t.Fatalf("+%v: state %v, cooldown %v; want ejected for %v", e.now.Sub(t0), s.State, s.CooldownRemaining, d)
	}
	for _, short := range []time.Duration{time.Millisecond, 1} {
		at := e.now.Add(d - short)
		if b := e.r.ProbeAt(at, time.Time{}); b.Reason != BlockedByEjection || !b.Until.Equal(e.now.Add(d)) {
			e.t.Fatalf("%v before the end: block %+v, want an ejection until +%v", short, b, e.now.Add(d).Sub(t0))
		}
		if _, _, ok := e.r.AdmitAt(at, time.Time{}); ok {
			e.t.Fatalf("admitted %v before the ejection ends", short)
		}
	}
	e.now = e.now.Add(d)
	if got := e.r.StateAt(e.now); got != endpoint.Degraded {
		e.t.Fatalf("state at the end of the ejection %v, want degraded", got)
	}
	if b := e.r.ProbeAt(e.now, time.Time{}); b.Reason != NotBlocked {
		e.t.Fatalf("block at the end of the ejection %+v, want free", b)
	}
}

func (e *ejector) notEjected() {
	e.t.Helper()
	if s := e.r.SnapshotAt(e.now); s.State == endpoint.Ejected || s.CooldownRemaining != 0 {
		e.t.Fatalf("+%v: state %v, cooldown %v; want not ejected", e.now.Sub(t0), s.State, s.CooldownRemaining)
	}
}

func TestEjectAfterConsecutiveFailures(t *testing.T) {
	var changes []string
	r := newRuntime(t, endpoint.Limits{}, Options{Ejection: classic, OnStateChange: func(from, to endpoint.Health) {
		changes = append(changes, from.String()+">"+to.String())
	}})
	e := &ejector{t: t, r: r, now: t0}
	e.outcome("fail", "fail")
	e.notEjected()
	e.outcome("fail")
	if b := r.ProbeAt(t0.Add(ms(300)), time.Time{}); b.Describe(t0.Add(ms(300))) != "ejected 200ms left" {
		t.Errorf("Describe = %q", b.Describe(t0.Add(ms(300))))
	}
	e.ejectedFor(classic.Base)
	if got, want := joinStrings(changes), "available>degraded degraded>ejected ejected>degraded"; got != want {
		t.Errorf("changes %q, want %q", got, want)
	}
	if s := r.SnapshotAt(e.now); s.Failures != 3 {
		t.Errorf("failures = %d, want 3", s.Failures)
	}
}

func TestSuccessResetsFailureCount(t *testing.T) {
	e := newEjector(t, classic)
	e.outcome("fail", "fail", "ok", "fail", "fail")
	e.notEjected()
	e.outcome("fail")
	e.ejectedFor(classic.Base)
}

func TestEjectionBackoff(t *testing.T) {
	e := newEjector(t, endpoint.Ejection{After: 2, Base: ms(100), Max: ms(300)})
	for _, d := range []time.Duration{ms(100), ms(200), ms(300), ms(300)} {
		e.outcome("fail")
		e.notEjected()
		e.outcome("fail")
		e.ejectedFor(d)
	}
	// A success resets the exponent (and the count).
	e.outcome("ok", "fail")
	e.notEjected()
	e.outcome("fail")
	e.ejectedFor(ms(100))
}

// TestEjectionKeepsLongerCooldown: an ejection never shortens a running
// rate-limit cooldown, and leaves its state alone.
func TestEjectionKeepsLongerCooldown(t *testing.T) {
	e := newEjector(t, classic)
	e.outcome("fail", "fail")
	e.r.RateLimitedAt(e.now, 0) // 10 s pause; the failure count stays
	// A request admitted under the new generation (the instant between the
	// cooldown check and reading the generation in AdmitAt) fails.
	e.r.FailedAt(e.now, e.r.health.load().generation())
	if s := e.r.SnapshotAt(e.now); s.State != endpoint.RateLimited || s.CooldownRemaining != 10*time.Second {
		t.Fatalf("state %v, cooldown %v; want rate-limited for 10s", s.State, s.CooldownRemaining)
	}
	if b := e.r.ProbeAt(e.now, time.Time{}); b.Reason != BlockedByCooldown {
		t.Errorf("block %v, want cooldown", b.Reason)
	}
	// That ejection still counts for the next one: 2 × Base.
	e.now = e.now.Add(10 * time.Second)
	e.outcome("fail", "fail", "fail")
	e.ejectedFor(2 * classic.Base)
}

func TestEjectionDisabled(t *testing.T) {
	e := newEjector(t, endpoint.Ejection{})
	for range 20 {
		e.outcome("fail")
	}
	e.notEjected()
	if got := e.r.StateAt(e.now); got != endpoint.Degraded {
		t.Errorf("state %v, want degraded", got)
	}
}

// TestStaleFailureDoesNotEject: a failure of a request admitted before the
// last transition neither counts nor ejects.
func TestStaleFailureDoesNotEject(t *testing.T) {
	e := newEjector(t, classic)
	old, _, _ := e.r.AdmitAt(e.now, time.Time{}) // admitted while available
	e.outcome("fail", "fail")                    // available -> degraded, count 2
	e.r.FailedAt(e.now, old.Generation)
	e.r.Release(Admission{})
	e.notEjected()
	// Ejected: every request admitted before is stale.
	inFlight, _, _ := e.r.AdmitAt(e.now, time.Time{})
	e.outcome("fail")
	e.r.FailedAt(e.now, inFlight.Generation)
	e.r.Release(Admission{})
	e.ejectedFor(classic.Base)
	// The stale failure during the ejection counted for nothing: After
	// more failures are needed again.
	e.outcome("fail", "fail")
	e.notEjected()
	e.outcome("fail")
	e.ejectedFor(2 * classic.Base)
}

// TestAdmitEjectedAt: panic mode admits through an ejection; a success
// there resets the counts but leaves the ejection running, an After-th
// failure ejects again (longer without a success in between), and a
// rate-limit cooldown still blocks.
func TestAdmitEjectedAt(t *testing.T) {
	e := newEjector(t, endpoint.Ejection{After: 2, Base: ms(100), Max: ms(2000)})
	e.outcome("fail", "fail")
	e.now = e.now.Add(ms(10))
	e.panicOutcome("ok")
	if s := e.r.SnapshotAt(e.now); s.State != endpoint.Ejected || s.CooldownRemaining != ms(90) {
		t.Fatalf("after a panic-mode success: state %v, cooldown %v; want ejected for 90ms", s.State, s.CooldownRemaining)
	}
	e.panicOutcome("fail", "fail") // the success reset the backoff: Base
	if s := e.r.SnapshotAt(e.now); s.State != endpoint.Ejected || s.CooldownRemaining != ms(100) {
		t.Fatalf("after two panic-mode failures: state %v, cooldown %v; want ejected for 100ms", s.State, s.CooldownRemaining)
	}
	e.panicOutcome("fail", "fail") // no success in between: 2 × Base
	e.ejectedFor(ms(200))

	e.outcome("fail", "fail")
	e.r.RateLimitedAt(e.now, 0)
	if _, b, ok := e.r.AdmitEjectedAt(e.now, time.Time{}); ok || b.Reason != BlockedByCooldown {
		t.Errorf("AdmitEjectedAt in a rate-limit cooldown: ok %v, block %v; want a cooldown block", ok, b.Reason)
	}
}
