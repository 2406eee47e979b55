package admission_test

import (
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/pool"
)

// avoiding is read restricted to name: every other endpoint in names is
// avoided.
func avoiding(name string, names ...string) admission.Request {
	r := read
	for _, n := range names {
		if n != name {
			r.Avoid = append(r.Avoid, n)
		}
	}
	return r
}

// alternativeBefore asks p whether an endpoint other than "a" could admit
// a read before deadline.
func alternativeBefore(p *admission.Pool, deadline time.Time) bool {
	return p.AlternativeBefore(endpoint.RoleRead, nil, nil, "a", deadline)
}

// TestAlternativeBeforeACooldown: another endpoint that a provider's rate
// limit cools down until the deadline or later cannot take a retry before
// it; one whose cooldown ends before the deadline can. HasAlternative,
// which looks at no cooldown, still says it exists.
func TestAlternativeBeforeACooldown(t *testing.T) {
	p, fc := newPool(t, ep("a", 0, endpoint.Limits{}), ep("b", 0, endpoint.Limits{}))
	if !alternativeBefore(p, fc.Now().Add(time.Second)) {
		t.Fatal("b, free, is no alternative")
	}
	now(t, p, avoiding("b", "a", "b"), "b").Done(rateLimited(60 * time.Second))
	end := fc.Now().Add(60 * time.Second)
	cases := []struct {
		name     string
		deadline time.Time
		want     bool
	}{
		{"deadline in a second", fc.Now().Add(time.Second), false},
		{"deadline as the cooldown ends", end, false},
		{"deadline just after it ends", end.Add(time.Nanosecond), true},
	}
	for _, tc := range cases {
		if got := alternativeBefore(p, tc.deadline); got != tc.want {
			t.Errorf("%s: AlternativeBefore %v, want %v", tc.name, got, tc.want)
		}
	}
	if !p.HasAlternative(admission.Request{Role: endpoint.RoleRead, Capabilities: nil}, []string{"a"}) {
		t.Fatal("HasAlternative changed: it looks at no cooldown")
	}
	if p.AlternativeBefore(endpoint.RoleRead, nil, []string{"b"}, "c", fc.Now().Add(time.Second)) != true {
		t.Fatal("a, free, is no alternative to c when b is avoided")
	}
}

// TestAlternativeBeforeAnEjection: an ejection lasting past the deadline
// leaves an endpoint out unless the scan's panic mode would admit it at
// once (ejections hold back more than half the endpoints left): then it
// is an alternative, and TryAcquire, avoiding a, does admit it.
func TestAlternativeBeforeAnEjection(t *testing.T) {
	eject := func(s *pool.Settings, _ *admission.Options) {
		s.Ejection = endpoint.Ejection{After: 1, Base: 30 * time.Second, Max: 30 * time.Second}
	}
	t.Run("alone: panic mode", func(t *testing.T) {
		p, fc := newPoolWith(t, eject, ep("a", 0, endpoint.Limits{}), ep("b", 0, endpoint.Limits{}))
		failOn(t, p, "b")
		if s := snapshotOf(t, p, "b"); s.State != endpoint.Ejected {
			t.Fatalf("b %v, want ejected", s.State)
		}
		if !alternativeBefore(p, fc.Now().Add(time.Second)) {
			t.Fatal("b, ejected alone, is no alternative, yet panic mode admits it")
		}
		pm := p.TryAcquire(avoiding("b", "a", "b"))
		if pm == nil || pm.Endpoint() != "b" {
			t.Fatalf("TryAcquire avoiding a: %v, want b in panic mode", pm)
		}
		pm.Release()
	})
	t.Run("beside a rate limit: no panic", func(t *testing.T) {
		p, fc := newPoolWith(t, eject, ep("a", 0, endpoint.Limits{}), ep("b", 0, endpoint.Limits{}), ep("c", 0, endpoint.Limits{}))
		failOn(t, p, "b")
		now(t, p, avoiding("c", "a", "b", "c"), "c").Done(rateLimited(60 * time.Second))
		if alternativeBefore(p, fc.Now().Add(time.Second)) {
			t.Fatal("b ejected and c cooling down for a minute: an alternative within a second")
		}
		onlyA := read
		onlyA.Avoid = []string{"a"}
		if pm := p.TryAcquire(onlyA); pm != nil {
			pm.Release()
			t.Fatalf("TryAcquire avoiding a admitted %s", pm.Endpoint())
		}
		if !alternativeBefore(p, fc.Now().Add(31*time.Second)) {
			t.Fatal("b's ejection ends before a deadline in 31 s: it is an alternative")
		}
	})
}

// TestTryAcquireElsewhereNeverFallsBack: with nothing outside Avoid to
// take the request, TryAcquireElsewhere returns nil and spends nothing
// (no token, no admission), where TryAcquire ignores Avoid; with another
// endpoint, it admits that one, and when that one is full, nobody.
func TestTryAcquireElsewhereNeverFallsBack(t *testing.T) {
	l := endpoint.Limits{RequestsPerSecond: 1, BurstCapacity: 2, MaxConcurrentRequests: 1}
	t.Run("one endpoint", func(t *testing.T) {
		p, _ := newPool(t, ep("a", 0, l))
		req := read
		req.Avoid = []string{"a"}
		if pm := p.TryAcquireElsewhere(req); pm != nil {
			pm.Release()
			t.Fatalf("admitted on %s, the endpoint avoided", pm.Endpoint())
		}
		if s := snapshotOf(t, p, "a"); s.Admitted != 0 || s.Tokens != 2 {
			t.Fatalf("a: %d admitted, %.2f tokens; want nothing spent", s.Admitted, s.Tokens)
		}
		pm := p.TryAcquire(req) // unchanged: Avoid yields when nothing else exists
		if pm == nil || pm.Endpoint() != "a" {
			t.Fatalf("TryAcquire: %v, want a", pm)
		}
		pm.Release()
	})
	t.Run("two endpoints", func(t *testing.T) {
		p, _ := newPool(t, ep("a", 0, l), ep("b", 0, l))
		req := read
		req.Avoid = []string{"a"}
		pm := p.TryAcquireElsewhere(req)
		if pm == nil || pm.Endpoint() != "b" {
			t.Fatalf("TryAcquireElsewhere: %v, want b", pm)
		}
		if other := p.TryAcquireElsewhere(req); other != nil { // b's one slot is held
			other.Release()
			t.Fatalf("admitted on %s with b full", other.Endpoint())
		}
		pm.Release()
		if s := snapshotOf(t, p, "a"); s.Admitted != 0 {
			t.Fatalf("a admitted %d", s.Admitted)
		}
	})
}
