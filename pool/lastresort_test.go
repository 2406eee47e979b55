package pool_test

import (
	"context"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
)

func TestLastResortUsedOnlyWhenNothingElseIsFree(t *testing.T) {
	// a and b share tier 0, c is tier 1; a is a last resort.
	p, fc := newPool(t,
		ep("a", 0, endpoint.Limits{}),
		ep("b", 0, endpoint.Limits{MaxConcurrentRequests: 1}),
		ep("c", 1, endpoint.Limits{MaxConcurrentRequests: 1, RequestsPerSecond: 1, BurstCapacity: 1}))
	lastA := read
	lastA.LastResort = []string{"a"}

	// While b is free, every request goes to b, never a, whatever the
	// round-robin position.
	for range 6 {
		now(t, p, lastA, "b").Success()
	}
	// b busy: the lower tier's c is preferred to tier 0's last resort.
	hb := now(t, p, lastA, "b")
	hc := now(t, p, lastA, "c")
	// b busy, c busy: a, at once, rather than waiting for b or c.
	now(t, p, lastA, "a").Success()
	hc.Success()
	// c is now out of tokens (1 per second) and b still busy: a again,
	// though c refills in a second.
	now(t, p, lastA, "a").Success()
	hb.Success()
	now(t, p, lastA, "b").Success()
	fc.Advance(ms(1000))

	// Every candidate a last resort: LastResort is ignored, the usual
	// round-robin applies.
	all := read
	all.LastResort = []string{"a", "b", "c"}
	seen := map[string]int{}
	for range 4 {
		pm, err := p.Acquire(context.Background(), all)
		if err != nil {
			t.Fatal(err)
		}
		seen[pm.Endpoint()]++
		pm.Success()
	}
	if seen["a"] != 2 || seen["b"] != 2 {
		t.Errorf("with every candidate a last resort, used %v; want a and b twice each", seen)
	}
}

func TestLastResortWithAvoid(t *testing.T) {
	p, _ := newPool(t, ep("a", 0, endpoint.Limits{}), ep("b", 0, endpoint.Limits{}))
	// b avoided (this call failed there) and a a last resort: a is all
	// that is left, so it is used, not skipped.
	req := read
	req.Avoid = []string{"b"}
	req.LastResort = []string{"a"}
	for range 3 {
		now(t, p, req, "a").Success()
	}
}

func TestLastResortWaitsForEarliestWhenAllBlocked(t *testing.T) {
	// Both busy: the request waits and takes whichever frees first, the
	// last resort included.
	p, fc := newPool(t,
		ep("a", 0, endpoint.Limits{MaxConcurrentRequests: 1}),
		ep("b", 0, endpoint.Limits{MaxConcurrentRequests: 1}))
	lastA := read
	lastA.LastResort = []string{"a"}
	hb := now(t, p, lastA, "b")
	ha := now(t, p, lastA, "a")
	pd := start(context.Background(), p, lastA)
	pd.mustWait(t, fc, 1)
	ha.Success()
	pd.permit(t, "a").Success()
	hb.Success()
}

func TestLastResortInPanicMode(t *testing.T) {
	// Every candidate ejected: panic mode admits one anyway, a last
	// resort only after the others.
	p, _ := newPool(t, ep("a", 0, endpoint.Limits{}), ep("b", 0, endpoint.Limits{}))
	for _, name := range []string{"a", "b"} {
		only := read
		only.Avoid = []string{map[string]string{"a": "b", "b": "a"}[name]}
		for range endpoint.DefaultEjectAfter {
			now(t, p, only, name).Failure()
		}
		if s := snapshotOf(t, p, name); s.State != endpoint.Ejected {
			t.Fatalf("%s is %v, want ejected", name, s.State)
		}
	}
	lastA := read
	lastA.LastResort = []string{"a"}
	for range 4 {
		now(t, p, lastA, "b").Success()
	}
}

func TestLastResortAtHoldsLastResortsBack(t *testing.T) {
	p, fc := newPool(t,
		ep("a", 0, endpoint.Limits{}),
		ep("b", 0, endpoint.Limits{MaxConcurrentRequests: 1}))
	req := read
	req.LastResort = []string{"a"}
	req.LastResortAt = t0.Add(ms(100))

	// b busy: the request waits for a's time, exactly, then takes a.
	hb := now(t, p, req, "b")
	pd := start(context.Background(), p, req)
	pd.waitsFor(t, fc, ms(100))
	pd.permit(t, "a").Success()

	// b busy again, a held back: b freed first wins.
	req.LastResortAt = fc.Now().Add(ms(100))
	pd = start(context.Background(), p, req)
	pd.mustWait(t, fc, 1)
	fc.Advance(ms(50))
	pd.mustWait(t, fc, 1)
	hb.Success()
	pd.permit(t, "b").Success()

	// Held back past the deadline: never used; the error says so.
	hb = now(t, p, req, "b")
	req.LastResortAt = fc.Now().Add(ms(100))
	req.Deadline = fc.Now().Add(ms(40))
	pd = start(context.Background(), p, req)
	pd.waitsFor(t, fc, ms(40))
	r := pd.get(t)
	if r.err == nil {
		r.pm.Release()
		t.Fatalf("permit from %s, want a deadline error", r.pm.Endpoint())
	}
	const want = "pool: getBalance (read): no endpoint admitted before the deadline: a: held back as a last resort, free; b: 1/1 in flight"
	if r.err.Error() != want {
		t.Fatalf("error\n %s\nwant\n %s", r.err, want)
	}
	hb.Success()
}

func TestLastResortHeldBackDoesNotStartPanicMode(t *testing.T) {
	// a in doubt (a last resort, held back), b ejected: waiting for a's
	// time is right; panic mode must not hand the request to b.
	p, fc := newPool(t, ep("a", 0, endpoint.Limits{}), ep("b", 0, endpoint.Limits{}))
	onlyB := read
	onlyB.Avoid = []string{"a"}
	for range endpoint.DefaultEjectAfter {
		now(t, p, onlyB, "b").Failure()
	}
	req := read
	req.LastResort = []string{"a"}
	req.LastResortAt = fc.Now().Add(ms(100))
	pd := start(context.Background(), p, req)
	pd.waitsFor(t, fc, ms(100))
	pd.permit(t, "a").Success()
}

func TestLastResortAtIgnoredWithoutAnAlternative(t *testing.T) {
	// One endpoint, or every one a last resort: nothing to wait for.
	p, _ := newPool(t, ep("a", 0, endpoint.Limits{}), ep("b", 0, endpoint.Limits{}))
	req := read
	req.LastResort = []string{"a", "b"}
	req.LastResortAt = t0.Add(time.Hour)
	now(t, p, req, "a").Success()
	now(t, p, req, "b").Success()
	single, _ := newPool(t, ep("a", 0, endpoint.Limits{}))
	req.LastResort = []string{"a"}
	now(t, single, req, "a").Success()
}

func TestLastResortAppliesWhenAvoidIsIgnored(t *testing.T) {
	// Every endpoint avoided, so Avoid is ignored; a is a last resort and
	// b is not: b, every time.
	p, _ := newPool(t, ep("a", 0, endpoint.Limits{}), ep("b", 0, endpoint.Limits{}))
	req := read
	req.Avoid = []string{"a", "b"}
	req.LastResort = []string{"a"}
	for range 4 {
		now(t, p, req, "b").Success()
	}
}
