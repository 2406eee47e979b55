package admission_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
)

// rw is an endpoint serving reads with l and sends without limits.
func rw(name string, tier int, l endpoint.Limits) endpoint.Spec {
	s := ep(name, tier, l)
	s.Roles[endpoint.RoleSend] = endpoint.Limits{}
	return s
}

// avoidDoubt is a read that avoids endpoints in doubt.
var avoidDoubt = admission.Request{Role: endpoint.RoleRead, Method: "sendTransaction", AvoidDoubt: true}

// putInDoubt puts endpoint name in doubt through an attempt of the send
// role that failed after writing: doubt covers every role of an
// endpoint, and the read role's bucket, slots and health are untouched.
func putInDoubt(t *testing.T, p *admission.Pool, name string) {
	t.Helper()
	req := admission.Request{Role: endpoint.RoleSend, Method: "sendTransaction"}
	for _, s := range p.Snapshot() {
		if s.Name != name && !slices.Contains(req.Avoid, s.Name) {
			req.Avoid = append(req.Avoid, s.Name)
		}
	}
	now(t, p, req, name).Done(doubtful())
	if s := snapshotOf(t, p, name); s.DoubtRemaining != pool.DefaultSettings().DoubtWindow {
		t.Fatalf("%s in doubt for %v, want %v", name, s.DoubtRemaining, pool.DefaultSettings().DoubtWindow)
	}
}

// atOnce is admission.Options with no doubt patience.
var atOnce = func(s *pool.Settings, _ *admission.Options) { s.DoubtPatience = 0 }

func TestDoubtUsedOnlyWhenNothingElseIsFree(t *testing.T) {
	// a and b share tier 0, c is tier 1; a is in doubt.
	p, fc := newPoolWith(t, atOnce,
		rw("a", 0, endpoint.Limits{}),
		rw("b", 0, endpoint.Limits{MaxConcurrentRequests: 1}),
		rw("c", 1, endpoint.Limits{MaxConcurrentRequests: 1, RequestsPerSecond: 1, BurstCapacity: 1}))
	putInDoubt(t, p, "a")

	// While b is free, every request goes to b, never a, whatever the
	// round-robin position.
	for range 6 {
		now(t, p, avoidDoubt, "b").Done(success())
	}
	// Reads that do not avoid doubt still use a.
	if got := tally(t, p, 4); got["a"] != 2 || got["b"] != 2 {
		t.Fatalf("plain reads: %v, want a and b twice each", got)
	}
	// b busy: the lower tier's c is preferred to tier 0's a.
	hb := now(t, p, avoidDoubt, "b")
	hc := now(t, p, avoidDoubt, "c")
	// b busy, c busy: a, at once, rather than waiting for b or c.
	now(t, p, avoidDoubt, "a").Done(success())
	hc.Done(success())
	// c is now out of tokens (1 per second) and b still busy: a again,
	// though c refills in a second.
	now(t, p, avoidDoubt, "a").Done(success())
	hb.Done(success())
	now(t, p, avoidDoubt, "b").Done(success())
	fc.Advance(ms(1000))

	// Every candidate in doubt: AvoidDoubt changes nothing, the usual
	// round-robin applies.
	putInDoubt(t, p, "b")
	putInDoubt(t, p, "c")
	seen := map[string]int{}
	for range 4 {
		pm, err := p.Acquire(context.Background(), avoidDoubt)
		if err != nil {
			t.Fatal(err)
		}
		seen[pm.Endpoint()]++
		pm.Done(success())
	}
	if seen["a"] != 2 || seen["b"] != 2 {
		t.Errorf("with every candidate in doubt, used %v; want a and b twice each", seen)
	}
}

func TestDoubtLapsesAfterTheWindow(t *testing.T) {
	p, fc := newPoolWith(t, func(s *pool.Settings, _ *admission.Options) { s.DoubtWindow = time.Second }, rw("a", 0, endpoint.Limits{}), rw("b", 0, endpoint.Limits{}))
	req := admission.Request{Role: endpoint.RoleSend, Method: "sendTransaction", Avoid: []string{"b"}}
	now(t, p, req, "a").Done(doubtful())
	for range 3 {
		now(t, p, avoidDoubt, "b").Done(success())
	}
	fc.Advance(time.Second)
	if got := tally(t, p, 2); got["a"] != 1 {
		t.Fatalf("after the window: %v", got)
	}
	seen := map[string]int{}
	for range 4 {
		pm, err := p.Acquire(context.Background(), avoidDoubt)
		if err != nil {
			t.Fatal(err)
		}
		seen[pm.Endpoint()]++
		pm.Done(success())
	}
	if seen["a"] != 2 {
		t.Fatalf("after the window, avoiding doubt: %v, want a twice", seen)
	}
}

func TestDoubtOff(t *testing.T) {
	p, _ := newPoolWith(t, func(s *pool.Settings, _ *admission.Options) { s.DoubtWindow = 0 }, rw("a", 0, endpoint.Limits{}), rw("b", 0, endpoint.Limits{}))
	req := admission.Request{Role: endpoint.RoleSend, Method: "sendTransaction", Avoid: []string{"b"}}
	now(t, p, req, "a").Done(doubtful())
	if s := snapshotOf(t, p, "a"); s.DoubtRemaining != 0 {
		t.Fatalf("doubt off, yet in doubt for %v", s.DoubtRemaining)
	}
	seen := map[string]int{}
	for range 4 {
		pm, err := p.Acquire(context.Background(), avoidDoubt)
		if err != nil {
			t.Fatal(err)
		}
		seen[pm.Endpoint()]++
		pm.Done(success())
	}
	if seen["a"] != 2 {
		t.Fatalf("doubt off: %v, want a twice", seen)
	}
}

// TestOnlyDoubtfulOutcomesPutInDoubt: an endpoint is put in doubt by its
// own failure after a server may have acted, not by a failure that proves
// nothing was sent, nor by the caller's or the client's own doing.
func TestOnlyDoubtfulOutcomesPutInDoubt(t *testing.T) {
	p, _ := newPool(t, rw("a", 0, endpoint.Limits{}))
	canceled := doubtful()
	canceled.Fault = retrypolicy.CallerFault
	for _, o := range []struct {
		name  string
		pm    func(*admission.Permit)
		doubt bool
	}{
		{"success", func(pm *admission.Permit) { pm.Done(success()) }, false},
		{"refused connection", func(pm *admission.Permit) { pm.Done(failure()) }, false},
		{"canceled after writing", func(pm *admission.Permit) { pm.Done(canceled) }, false},
		{"release", func(pm *admission.Permit) { pm.Release() }, false},
		{"reset after writing", func(pm *admission.Permit) { pm.Done(doubtful()) }, true},
		{"429, still in doubt", func(pm *admission.Permit) { pm.Done(rateLimited(0)) }, true},
	} {
		o.pm(now(t, p, read, "a"))
		if got := snapshotOf(t, p, "a").DoubtRemaining > 0; got != o.doubt {
			t.Fatalf("%s: in doubt %v, want %v", o.name, got, o.doubt)
		}
	}
}

func TestDoubtWithAvoid(t *testing.T) {
	p, _ := newPool(t, rw("a", 0, endpoint.Limits{}), rw("b", 0, endpoint.Limits{}))
	putInDoubt(t, p, "a")
	// b avoided (this call failed there) and a in doubt: a is all that is
	// left, so it is used at once, not skipped nor held back.
	req := avoidDoubt
	req.Avoid = []string{"b"}
	for range 3 {
		now(t, p, req, "a").Done(success())
	}
}

func TestDoubtWaitsForEarliestWhenAllBlocked(t *testing.T) {
	// Both busy: the request waits and takes whichever frees first, the
	// one in doubt included.
	p, fc := newPoolWith(t, atOnce,
		rw("a", 0, endpoint.Limits{MaxConcurrentRequests: 1}),
		rw("b", 0, endpoint.Limits{MaxConcurrentRequests: 1}))
	putInDoubt(t, p, "a")
	hb := now(t, p, avoidDoubt, "b")
	ha := now(t, p, avoidDoubt, "a")
	pd := start(context.Background(), p, avoidDoubt)
	pd.mustWait(t, fc, 1)
	ha.Done(success())
	pd.permit(t, "a").Done(success())
	hb.Done(success())
}

func TestDoubtInPanicMode(t *testing.T) {
	// Every candidate ejected: panic mode admits one anyway, the one in
	// doubt only after the others.
	p, _ := newPool(t, rw("a", 0, endpoint.Limits{}), rw("b", 0, endpoint.Limits{}))
	for _, name := range []string{"a", "b"} {
		only := read
		only.Avoid = []string{map[string]string{"a": "b", "b": "a"}[name]}
		for range pool.DefaultSettings().Ejection.After {
			now(t, p, only, name).Done(failure())
		}
		if s := snapshotOf(t, p, name); s.State != endpoint.Ejected {
			t.Fatalf("%s is %v, want ejected", name, s.State)
		}
	}
	putInDoubt(t, p, "a")
	for range 4 {
		now(t, p, avoidDoubt, "b").Done(success())
	}
}

func TestDoubtPatienceHoldsBack(t *testing.T) {
	p, fc := newPoolWith(t, func(s *pool.Settings, _ *admission.Options) { s.DoubtPatience = ms(100) },
		rw("a", 0, endpoint.Limits{MaxConcurrentRequests: 1}),
		rw("b", 0, endpoint.Limits{MaxConcurrentRequests: 1}))
	putInDoubt(t, p, "a")

	// b busy: the request waits the patience, exactly, then takes a.
	hb := now(t, p, avoidDoubt, "b")
	pd := start(context.Background(), p, avoidDoubt)
	pd.waitsFor(t, fc, ms(100))
	pd.permit(t, "a").Done(success())

	// b busy again, a held back: b freed first wins.
	pd = start(context.Background(), p, avoidDoubt)
	pd.mustWait(t, fc, 1)
	fc.Advance(ms(50))
	pd.mustWait(t, fc, 1)
	hb.Done(success())
	pd.permit(t, "b").Done(success())

	// The patience is at most half the time left: with 40 ms left, a is
	// taken after 20 ms, never held back until the deadline.
	hb = now(t, p, avoidDoubt, "b")
	req := avoidDoubt
	req.Deadline = fc.Now().Add(ms(40))
	pd = start(context.Background(), p, req)
	pd.waitsFor(t, fc, ms(20))
	pd.permit(t, "a").Done(success())

	// a busy too: the deadline error names a as in doubt.
	ha := now(t, p, admission.Request{Role: endpoint.RoleRead, Method: "getSlot", Avoid: []string{"b"}}, "a")
	req.Deadline = fc.Now().Add(ms(40))
	pd = start(context.Background(), p, req)
	pd.waitsFor(t, fc, ms(40))
	r := pd.get(t)
	if r.err == nil {
		r.pm.Release()
		t.Fatalf("permit from %s, want a deadline error", r.pm.Endpoint())
	}
	const want = "pool: sendTransaction (read): no endpoint admitted before the deadline: a: in doubt, 1/1 in flight; b: 1/1 in flight"
	if r.err.Error() != want {
		t.Fatalf("error\n %s\nwant\n %s", r.err, want)
	}
	ha.Done(success())
	hb.Done(success())
}

func TestDoubtHeldBackDoesNotStartPanicMode(t *testing.T) {
	// a in doubt (held back), b ejected: waiting for a's time is right;
	// panic mode must not hand the request to b.
	p, fc := newPoolWith(t, func(s *pool.Settings, _ *admission.Options) { s.DoubtPatience = ms(100) }, rw("a", 0, endpoint.Limits{}), rw("b", 0, endpoint.Limits{}))
	onlyB := read
	onlyB.Avoid = []string{"a"}
	for range pool.DefaultSettings().Ejection.After {
		now(t, p, onlyB, "b").Done(failure())
	}
	putInDoubt(t, p, "a")
	pd := start(context.Background(), p, avoidDoubt)
	pd.waitsFor(t, fc, ms(100))
	pd.permit(t, "a").Done(success())
}

func TestDoubtIgnoredWithoutAnAlternative(t *testing.T) {
	// One endpoint, or every one in doubt: nothing to wait for.
	p, _ := newPoolWith(t, func(s *pool.Settings, _ *admission.Options) { s.DoubtPatience = time.Hour }, rw("a", 0, endpoint.Limits{}), rw("b", 0, endpoint.Limits{}))
	putInDoubt(t, p, "a")
	putInDoubt(t, p, "b")
	now(t, p, avoidDoubt, "a").Done(success())
	now(t, p, avoidDoubt, "b").Done(success())
	single, _ := newPoolWith(t, func(s *pool.Settings, _ *admission.Options) { s.DoubtPatience = time.Hour }, rw("a", 0, endpoint.Limits{}))
	putInDoubt(t, single, "a")
	now(t, single, avoidDoubt, "a").Done(success())
}

func TestDoubtAppliesWhenAvoidIsIgnored(t *testing.T) {
	// Every endpoint avoided, so Avoid is ignored; a is in doubt and b is
	// not: b, every time.
	p, _ := newPool(t, rw("a", 0, endpoint.Limits{}), rw("b", 0, endpoint.Limits{}))
	putInDoubt(t, p, "a")
	req := avoidDoubt
	req.Avoid = []string{"a", "b"}
	for range 4 {
		now(t, p, req, "b").Done(success())
	}
}
