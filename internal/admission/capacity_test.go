package admission_test

import (
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/pool"
)

// TestCapacitiesAreTheFirstTierServing: Capacities lists the endpoints a
// read would be admitted to first, with their configured limits and
// latency estimate: tier 0 while one of it serves, without those the guard
// holds or an ejection holds back; the next tier when tier 0 has none;
// the first tier the guard lets through when all of them are ejected.
func TestCapacitiesAreTheFirstTierServing(t *testing.T) {
	p, fc := newPoolWith(t, func(s *pool.Settings, _ *admission.Options) { s.Ejection = classic },
		ep("a", 0, endpoint.Limits{RequestsPerSecond: 300, MaxConcurrentRequests: 20}),
		ep("b", 0, endpoint.Limits{RequestsPerSecond: 100}),
		ep("held", 0, endpoint.Limits{MaxConcurrentRequests: 8}),
		ep("c", 1, endpoint.Limits{}))
	if !p.Hold("held") {
		t.Fatal("held not held")
	}
	// a answers in 40 ms: its estimate; b has no sample.
	onlyA := read
	onlyA.Endpoint = "a"
	pm := now(t, p, onlyA, "a")
	fc.Advance(ms(40))
	pm.Done(success())
	want := []admission.Capacity{
		{Endpoint: "a", RequestsPerSecond: 300, BurstCapacity: 300, MaxConcurrentRequests: 20, Latency: ms(40)},
		{Endpoint: "b", RequestsPerSecond: 100, BurstCapacity: 100},
	}
	checkCapacities(t, p, "tier 0", want)
	// The estimate decays as the balancing reads it: e^-1 after 1 s.
	fc.Advance(time.Second)
	want[0].Latency = p.Snapshot()[0].Latency
	if got := want[0].Latency; got < ms(14) || got > ms(15) {
		t.Fatalf("a's estimate after 1 s idle: %v, want 40 ms × e^-1", got)
	}
	checkCapacities(t, p, "decayed", want)
	// a and b ejected: tier 1.
	for _, name := range []string{"a", "b"} {
		only := read
		only.Endpoint = name
		for range classic.After {
			now(t, p, only, name).Done(failure())
		}
	}
	checkCapacities(t, p, "tier 0 ejected", []admission.Capacity{{Endpoint: "c"}})
	// c excluded too: tier 0 as panic mode would serve it, a with its
	// failure-raised estimate.
	p.Exclude("c", "serves devnet")
	got := p.Capacities(endpoint.RoleRead)
	if len(got) != 2 || got[0].Endpoint != "a" || got[1].Endpoint != "b" || got[0].Latency < 500*time.Millisecond {
		t.Fatalf("every tier ejected or excluded: %+v, want a (penalised) and b", got)
	}
	if got := p.Capacities(endpoint.RoleSend); got != nil {
		t.Fatalf("no send endpoint: %+v", got)
	}
}

func checkCapacities(t *testing.T, p *admission.Pool, what string, want []admission.Capacity) {
	t.Helper()
	got := p.Capacities(endpoint.RoleRead)
	if len(got) != len(want) {
		t.Fatalf("%s: %+v, want %+v", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: [%d] %+v, want %+v", what, i, got[i], want[i])
		}
	}
}
