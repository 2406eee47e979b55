package admission_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
)

// TestWaiterWokenByRefill: a burst of 3 at 10 rps, then one token exactly
// 100ms later, and no more.
func TestWaiterWokenByRefill(t *testing.T) {
	p, fc := newPool(t, ep("a", 0, endpoint.Limits{RequestsPerSecond: 10, BurstCapacity: 3}))
	for range 3 {
		now(t, p, read, "a").Done(success())
	}
	pd := start(context.Background(), p, read)
	pd.waitsFor(t, fc, ms(100))
	pm := pd.permit(t, "a")
	if got := pm.AdmittedAt().Sub(t0); got != ms(100) {
		t.Errorf("admitted at +%v, want +100ms", got)
	}
	pm.Done(success())

	// Exactly one token came back: the next request waits another 100ms.
	pd = start(context.Background(), p, read)
	pd.waitsFor(t, fc, ms(100))
	pd.permit(t, "a").Done(success())
}

func TestImplicitBurstFromRPS(t *testing.T) {
	p, fc := newPool(t, ep("a", 0, endpoint.Limits{RequestsPerSecond: 5}))
	if s := snapshotOf(t, p, "a"); s.Burst != 5 || s.Tokens != 5 {
		t.Fatalf("burst %d, tokens %v; want 5 and 5", s.Burst, s.Tokens)
	}
	for range 5 {
		now(t, p, read, "a").Done(success())
	}
	pd := start(context.Background(), p, read)
	pd.waitsFor(t, fc, ms(200))
	pd.permit(t, "a").Done(success())
}

// TestWaiterWokenByRelease: a slot freed by another goroutine at +500ms is
// reused at once by the waiter.
func TestWaiterWokenByRelease(t *testing.T) {
	p, fc := newPool(t, ep("a", 0, endpoint.Limits{MaxConcurrentRequests: 2}))
	held := now(t, p, read, "a")
	other := now(t, p, read, "a")
	if p.Outstanding() != 2 {
		t.Fatalf("Outstanding = %d, want 2", p.Outstanding())
	}
	released := make(chan struct{})
	go func() {
		<-fc.After(ms(500))
		held.Done(success())
		close(released)
	}()
	pd := start(context.Background(), p, read)
	pd.mustWait(t, fc, 2) // the holder's timer and the waiter's deadline timer
	fc.Advance(ms(499))
	pd.mustWait(t, fc, 2)
	fc.Advance(ms(1))
	<-released
	pm := pd.permit(t, "a")
	if got := pm.AdmittedAt().Sub(t0); got != ms(500) {
		t.Errorf("admitted at +%v, want +500ms", got)
	}
	if s := snapshotOf(t, p, "a"); s.InFlight != 2 {
		t.Errorf("in flight %d, want 2", s.InFlight)
	}
	pm.Release()
	other.Release()
}

// TestWaiterWokenByCooldownEnd covers the cooldown after a rate limit with
// and without a provider delay, and the 60s cap.
func TestWaiterWokenByCooldownEnd(t *testing.T) {
	tests := []struct {
		name     string
		pause    time.Duration
		provider time.Duration
		want     time.Duration
	}{
		{"configured pause", 2 * time.Second, 0, 2 * time.Second},
		{"default pause", 0, 0, endpoint.Limits{}.Normalized().PauseAfterRateLimit},
		{"provider delay extends", time.Second, 5 * time.Second, 5 * time.Second},
		{"provider delay shorter than the pause", 3 * time.Second, time.Second, 3 * time.Second},
		{"provider delay capped", time.Second, 10 * time.Minute, 60 * time.Second}, // the provider delay cap,
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, fc := newPool(t, ep("a", 0, endpoint.Limits{PauseAfterRateLimit: tt.pause, RequestTimeout: time.Hour}))
			now(t, p, read, "a").Done(rateLimited(tt.provider))
			s := snapshotOf(t, p, "a")
			if s.State != endpoint.RateLimited || s.CooldownRemaining != tt.want || s.RateLimits != 1 {
				t.Fatalf("snapshot %+v, want rate-limited for %v", s, tt.want)
			}
			pd := start(context.Background(), p, read)
			pd.mustWait(t, fc, 1)
			fc.Advance(tt.want - ms(1))
			pd.mustWait(t, fc, 1)
			fc.Advance(ms(1))
			pm := pd.permit(t, "a")
			if got := pm.AdmittedAt().Sub(t0); got != tt.want {
				t.Errorf("admitted at +%v, want +%v", got, tt.want)
			}
			if s := snapshotOf(t, p, "a"); s.State != endpoint.Degraded {
				t.Errorf("state after the cooldown %v, want degraded", s.State)
			}
			pm.Done(success())
		})
	}
}

// TestFallback: when the first candidate is blocked by concurrency, rate or
// cooldown, its peer in the tier takes the request, then the lower tier.
// With every candidate blocked, a waiter sleeps until the earliest block
// clears: held slots each wake it when released (it scans again and times
// the tokens spent at t0), a spent token refills at +100ms, a cooldown ends
// at +1s.
func TestFallback(t *testing.T) {
	limits := endpoint.Limits{MaxConcurrentRequests: 1, RequestsPerSecond: 10, BurstCapacity: 1}
	// A token spent at t0 is back a nanosecond before +100ms: the limiter
	// accepts a shortfall that converts to less than 1ns (rolestate's
	// rateBucket.ReadyAt finds the first instant a take succeeds).
	refill := ms(100) - time.Nanosecond
	tests := []struct {
		name  string
		block func(pm *admission.Permit) (held *admission.Permit)
		// first is the waiter's first timer, wait how long it waits once
		// the held permits (if any) are released.
		first, wait time.Duration
	}{
		{"concurrency", func(pm *admission.Permit) *admission.Permit { return pm },
			endpoint.Limits{}.Normalized().RequestTimeout, refill},
		{"rate", func(pm *admission.Permit) *admission.Permit { pm.Done(success()); return nil },
			refill, refill},
		{"cooldown", func(pm *admission.Permit) *admission.Permit { pm.Done(rateLimited(0)); return nil },
			endpoint.Limits{}.Normalized().PauseAfterRateLimit, endpoint.Limits{}.Normalized().PauseAfterRateLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, tc := newPoolTimers(t, ep("a", 0, limits), ep("b", 0, limits), ep("c", 1, limits))
			only := func(n string) admission.Request {
				r := read
				for _, x := range []string{"a", "b", "c"} {
					if x != n {
						r.Avoid = append(r.Avoid, x)
					}
				}
				return r
			}
			var held []*admission.Permit
			hold := func(pm *admission.Permit) {
				if pm != nil {
					held = append(held, pm)
				}
			}
			hold(tt.block(now(t, p, only("a"), "a")))
			hold(tt.block(now(t, p, read, "b"))) // a is blocked: its peer
			hold(tt.block(now(t, p, read, "c"))) // the whole tier is: the lower tier
			pd := start(context.Background(), p, read)
			tc.timerStarted(t, tt.first)
			// One release at a time, each followed by the waiter's new
			// timer: the clock is advanced only once the waiter sleeps on
			// the timer it set after the last release, never on the one
			// a wakeup left behind (it would be spent on no one, and
			// enough of them would carry the waiter past its deadline).
			for _, pm := range held {
				pm.Release()
				tc.timerStarted(t, tt.wait)
			}
			pd.waitsFor(t, tc.FakeClock, tt.wait)
			r := pd.get(t)
			if r.err != nil {
				t.Fatalf("Acquire after the blocks cleared: %v", r.err)
			}
			defer r.pm.Release()
			if got := r.pm.AdmittedAt().Sub(t0); got != tt.wait || r.pm.Tier() != 0 {
				t.Errorf("admitted on %s (tier %d) at +%v, want tier 0 at +%v", r.pm.Endpoint(), r.pm.Tier(), got, tt.wait)
			}
		})
	}
}

// TestRefund: a candidate refused for concurrency or cooldown keeps its
// tokens; the request goes to a peer.
func TestRefund(t *testing.T) {
	limited := endpoint.Limits{MaxConcurrentRequests: 1, RequestsPerSecond: 1, BurstCapacity: 5}
	p, _ := newPool(t, ep("a", 0, limited), ep("b", 0, endpoint.Limits{}))
	onlyA := read
	onlyA.Avoid = []string{"b"}
	held := now(t, p, onlyA, "a")
	for range 10 {
		now(t, p, read, "b").Done(success())
	}
	if s := snapshotOf(t, p, "a"); s.Tokens != 4 || s.InFlight != 1 {
		t.Fatalf("a: tokens %v, in flight %d; want 4 and 1 (no token spent while full)", s.Tokens, s.InFlight)
	}
	held.Done(rateLimited(0))
	for range 10 {
		now(t, p, read, "b").Done(success())
	}
	if s := snapshotOf(t, p, "a"); s.Tokens != 4 || s.InFlight != 0 {
		t.Fatalf("a: tokens %v, in flight %d; want 4 and 0 (no token spent while cooling)", s.Tokens, s.InFlight)
	}
}

// TestRoundRobinEvenness: inside a tier, admissions rotate evenly; a lower
// tier is never used while the first has room.
func TestRoundRobinEvenness(t *testing.T) {
	p, _ := newPool(t,
		ep("a", 0, endpoint.Limits{}), ep("b", 0, endpoint.Limits{}),
		ep("c", 0, endpoint.Limits{}), ep("d", 0, endpoint.Limits{}),
		ep("z", 1, endpoint.Limits{}))
	counts := tally(t, p, 400)
	for _, n := range []string{"a", "b", "c", "d"} {
		if counts[n] != 100 {
			t.Errorf("counts = %v, want 100 each in tier 0", counts)
			break
		}
	}
	if counts["z"] != 0 {
		t.Errorf("tier 1 used %d times while tier 0 had room", counts["z"])
	}
}

func TestAvoid(t *testing.T) {
	p, fc := newPool(t, ep("a", 0, endpoint.Limits{}), ep("b", 0, endpoint.Limits{MaxConcurrentRequests: 1}))
	avoidA := read
	avoidA.Avoid = []string{"a"}
	for range 5 {
		now(t, p, avoidA, "b").Done(success())
	}
	// Every compatible endpoint avoided: Avoid is ignored.
	all := read
	all.Avoid = []string{"a", "b"}
	seen := map[string]bool{}
	for range 4 {
		pm, err := p.Acquire(context.Background(), all)
		if err != nil {
			t.Fatal(err)
		}
		seen[pm.Endpoint()] = true
		pm.Done(success())
	}
	if !seen["a"] || !seen["b"] {
		t.Errorf("with everything avoided, used %v; want both", seen)
	}
	// Avoid holds while b exists, even when b is busy: wait for b.
	held := now(t, p, avoidA, "b")
	pd := start(context.Background(), p, avoidA)
	pd.mustWait(t, fc, 1)
	held.Done(success())
	pd.permit(t, "b").Done(success())
}

func TestHasAlternative(t *testing.T) {
	archive := ep("a", 0, endpoint.Limits{})
	archive.Capabilities = []string{"archive"}
	p, _ := newPool(t, archive, ep("b", 1, endpoint.Limits{}))
	for _, tc := range []struct {
		caps, avoid []string
		want        bool
	}{
		{nil, nil, true},
		{nil, []string{"a"}, true},
		{nil, []string{"a", "b"}, false},
		{[]string{"archive"}, nil, true},
		{[]string{"archive"}, []string{"a"}, false},
		{[]string{"archive"}, []string{"b"}, true},
		{[]string{"trace"}, nil, false},
	} {
		if got := p.HasAlternative(admission.Request{Role: endpoint.RoleRead, Capabilities: tc.caps}, tc.avoid); got != tc.want {
			t.Errorf("HasAlternative(read, %v, %v) = %v, want %v", tc.caps, tc.avoid, got, tc.want)
		}
	}
	if p.HasAlternative(admission.Request{Role: endpoint.Role(9), Capabilities: nil}, nil) {
		t.Error("HasAlternative of a role nobody serves = true")
	}
}

// TestOneAnswerToWhoElseCanTakeIt (issue 20, item 8): an endpoint the
// cluster guard holds back (excluded for good, or awaiting its check) is
// no alternative, for HasAlternative and for Acquire's Avoid alike: a
// retry avoiding a is told it cannot go elsewhere, and Acquire admits a
// at once instead of waiting for b until the deadline.
func TestOneAnswerToWhoElseCanTakeIt(t *testing.T) {
	for _, tc := range []struct {
		name string
		keep func(p *admission.Pool)
	}{
		{"excluded", func(p *admission.Pool) { p.Exclude("b", "serves devnet") }},
		{"unverified", func(p *admission.Pool) { p.Hold("b") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newPool(t, ep("a", 0, endpoint.Limits{}), ep("b", 0, endpoint.Limits{}))
			tc.keep(p)
			if p.HasAlternative(admission.Request{Role: endpoint.RoleRead, Capabilities: nil}, []string{"a"}) {
				t.Fatal("HasAlternative: b counts as somewhere else to go")
			}
			avoidA := admission.Request{Role: endpoint.RoleRead, Method: "getBalance", Avoid: []string{"a"}}
			pm := now(t, p, avoidA, "a")
			pm.Done(success())
			if !p.HasAlternative(admission.Request{Role: endpoint.RoleRead, Capabilities: nil}, []string{"b"}) {
				t.Fatal("HasAlternative: a, verified, is no alternative to b")
			}
		})
	}
	// Once verified, b is an alternative again, and Avoid applies.
	p, _ := newPool(t, ep("a", 0, endpoint.Limits{}), ep("b", 0, endpoint.Limits{}))
	p.Hold("b")
	p.Verify("b")
	if !p.HasAlternative(admission.Request{Role: endpoint.RoleRead, Capabilities: nil}, []string{"a"}) {
		t.Fatal("HasAlternative: verified b is no alternative")
	}
	now(t, p, admission.Request{Role: endpoint.RoleRead, Method: "getBalance", Avoid: []string{"a"}}, "b").Done(success())
}

func TestNoEndpoint(t *testing.T) {
	archive := ep("a", 0, endpoint.Limits{})
	archive.Capabilities = []string{"archive"}
	p, _ := newPool(t, archive, ep("b", 0, endpoint.Limits{}))
	for _, req := range []admission.Request{
		{Role: endpoint.RoleSend, Method: "sendTransaction"},
		{Role: endpoint.RoleRead, Method: "getBlock", Capabilities: []string{"archive", "trace"}},
		{Role: endpoint.Role(9), Method: "x"},
	} {
		_, err := p.Acquire(context.Background(), req)
		var ne *admission.NoEndpointError
		if !errors.Is(err, admission.ErrNoEndpoint) || !errors.As(err, &ne) || ne.Method != req.Method {
			t.Errorf("Acquire(%+v) = %v, want ErrNoEndpoint", req, err)
		}
		if _, err := p.DefaultTimeout(req); !errors.Is(err, admission.ErrNoEndpoint) {
			t.Errorf("DefaultTimeout = %v, want ErrNoEndpoint", err)
		}
	}
	withArchive := read
	withArchive.Capabilities = []string{"archive"}
	for range 3 {
		now(t, p, withArchive, "a").Done(success())
	}
}

func TestContextCanceledWhileWaiting(t *testing.T) {
	p, fc := newPool(t, ep("a", 0, endpoint.Limits{MaxConcurrentRequests: 1}))
	held := now(t, p, read, "a")
	defer held.Release()
	ctx, cancel := context.WithCancel(context.Background())
	pd := start(ctx, p, read)
	pd.mustWait(t, fc, 1)
	cancel()
	r := pd.get(t)
	if !errors.Is(r.err, context.Canceled) || errors.Is(r.err, admission.ErrDeadline) {
		t.Fatalf("Acquire = %v, want context.Canceled only", r.err)
	}
	// Already canceled: no admission even though a slot is free.
	held.Release()
	if _, err := p.Acquire(ctx, read); !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire on a canceled ctx = %v", err)
	}
}

func TestTryAcquire(t *testing.T) {
	p, fc := newPool(t, ep("a", 0, endpoint.Limits{MaxConcurrentRequests: 1}), ep("b", 1, endpoint.Limits{MaxConcurrentRequests: 1}))
	ha := p.TryAcquire(read)
	hb := p.TryAcquire(read)
	if ha == nil || hb == nil || ha.Endpoint() != "a" || hb.Endpoint() != "b" {
		t.Fatalf("TryAcquire gave %v, %v; want a then b", ha, hb)
	}
	// Everything busy: nil at once (on a fake clock that nobody advances,
	// a wait would never return).
	if pm := p.TryAcquire(read); pm != nil {
		pm.Release()
		t.Fatalf("permit from %s with every endpoint busy", pm.Endpoint())
	}
	past := read
	past.Deadline = fc.Now()
	ha.Done(success())
	if pm := p.TryAcquire(past); pm != nil {
		pm.Release()
		t.Fatal("permit at the deadline")
	}
	if pm := p.TryAcquire(admission.Request{Role: endpoint.RoleSend}); pm != nil {
		t.Fatal("permit for a role no endpoint serves")
	}
	hb.Done(success())
}
