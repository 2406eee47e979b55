package rolestate

import (
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
)

// TestHandOffSlot: a slot TakeSlot takes counts as held until ReturnSlot or
// an admission on it; AdmitHeldAt admits without counting it again and
// keeps it on a refusal; neither calls OnSlotFreed.
func TestHandOffSlot(t *testing.T) {
	freed := 0
	r := newRuntime(t, endpoint.Limits{RequestsPerSecond: 10, BurstCapacity: 1, MaxConcurrentRequests: 2}, Options{OnSlotFreed: func() { freed++ }})
	for i, want := range []bool{true, true, false} {
		if got := r.TakeSlot(); got != want {
			t.Fatalf("TakeSlot %d: %v, want two slots, then none", i+1, got)
		}
	}
	a, _, ok := r.AdmitHeldAt(t0, time.Time{}, false)
	if !ok || r.InFlight() != 2 {
		t.Fatalf("AdmitHeldAt: admitted %v, in flight %d; want true and 2", ok, r.InFlight())
	}
	if _, b, ok := r.AdmitHeldAt(t0, time.Time{}, false); ok || b.Reason != BlockedByRate || r.InFlight() != 2 {
		t.Fatalf("AdmitHeldAt with no token: %v %v, in flight %d; want a rate refusal and the slot still held", ok, b.Reason, r.InFlight())
	}
	r.ReturnSlot()
	r.Release(a)
	if r.InFlight() != 0 || freed != 1 {
		t.Fatalf("in flight %d, freed %d; want 0 and 1 (the Release only)", r.InFlight(), freed)
	}
	defer func() {
		if recover() == nil {
			t.Error("ReturnSlot without a slot did not panic")
		}
	}()
	r.ReturnSlot()
}

func TestTakeSlotUncapped(t *testing.T) {
	if r := newRuntime(t, endpoint.Limits{}, Options{}); r.TakeSlot() {
		t.Error("TakeSlot on a role with no cap: nobody waits for a slot there")
	}
}

// TestUsableAt: a slot is worth handing only without a rate-limit
// cooldown and with a token; an ejection passes (panic mode may use it).
func TestUsableAt(t *testing.T) {
	r := newRuntime(t, endpoint.Limits{RequestsPerSecond: 10, BurstCapacity: 1, MaxConcurrentRequests: 1}, Options{})
	if !r.UsableAt(t0) {
		t.Fatal("a fresh role: not usable")
	}
	a, _, _ := r.AdmitAt(t0, time.Time{})
	r.Release(a)
	if r.UsableAt(t0) || !r.UsableAt(t0.Add(ms(100))) {
		t.Fatal("want unusable until the token is back at +100ms")
	}
	r.RateLimitedAt(t0.Add(ms(100)), time.Second)
	if r.UsableAt(t0.Add(ms(500))) || !r.UsableAt(t0.Add(ms(1100))) {
		t.Fatal("want unusable during the 1s cooldown only")
	}
	e := newRuntime(t, endpoint.Limits{MaxConcurrentRequests: 1}, Options{Ejection: endpoint.Ejection{After: 1, Base: time.Second, Max: time.Second}})
	a, _, _ = e.AdmitAt(t0, time.Time{})
	e.FailedAt(t0, a.Generation)
	e.Release(a)
	if b := e.ProbeAt(t0, time.Time{}); b.Reason != BlockedByEjection {
		t.Fatalf("after a failure with After 1: %v, want an ejection", b.Reason)
	}
	if !e.UsableAt(t0) {
		t.Fatal("an ejected role: not usable (panic mode may use it)")
	}
}
