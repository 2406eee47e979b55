package rolestate

import (
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
)

func newRuntime(t *testing.T, l endpoint.Limits, opts Options) *Runtime {
	t.Helper()
	spec := endpoint.Spec{Name: "ep", URL: endpoint.NewSecret("https://x.example/"), Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: l}}
	r, err := New(&spec, endpoint.RoleRead, t0, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func TestNewRuntimeRoleNotServed(t *testing.T) {
	spec := endpoint.Spec{Name: "a", URL: endpoint.NewSecret("https://a.example/"),
		Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {}}}
	if _, err := New(&spec, endpoint.RoleSend, t0, Options{}); !errors.Is(err, ErrRoleNotServed) {
		t.Fatalf("New(send) = %v, want ErrRoleNotServed", err)
	}
}

// TestAdmitOrder checks which reason wins when several apply: cooldown,
// then concurrency, then token.
func TestAdmitOrder(t *testing.T) {
	r := newRuntime(t, endpoint.Limits{RequestsPerSecond: 1, BurstCapacity: 1, MaxConcurrentRequests: 1}, Options{})
	if _, _, ok := r.AdmitAt(t0, time.Time{}); !ok {
		t.Fatal("first admission refused")
	}
	// Slot held and bucket empty: concurrency is reported.
	if _, b, _ := r.AdmitAt(t0, time.Time{}); b.Reason != BlockedByConcurrency || b.InFlight != 1 || b.MaxConcurrent != 1 {
		t.Fatalf("block = %+v, want concurrency 1/1", b)
	}
	r.RateLimitedAt(t0, 0)
	if _, b, _ := r.AdmitAt(t0, time.Time{}); b.Reason != BlockedByCooldown || !b.Until.Equal(t0.Add(time.Second)) {
		t.Fatalf("block = %+v, want cooldown until +1s", b)
	}
	// Past the deadline wins over everything.
	if _, b, _ := r.AdmitAt(t0, t0); b.Reason != BlockedByDeadline {
		t.Fatalf("block = %+v, want deadline", b)
	}
	r.Release(Admission{})
	// Cooldown over, slot free, bucket refilled at +1s.
	if _, _, ok := r.AdmitAt(t0.Add(time.Second), time.Time{}); !ok {
		t.Fatal("admission after cooldown refused")
	}
}

// countingBucket wraps a bucket, counts takes and can refuse one take that
// TokensAt promised (as when a concurrent caller takes the last token).
type countingBucket struct {
	Bucket
	takes      int
	refuseNext bool
}

func (b *countingBucket) TakeAt(t time.Time) bool {
	if b.refuseNext {
		b.refuseNext = false
		return false
	}
	ok := b.Bucket.TakeAt(t)
	if ok {
		b.takes++
	}
	return ok
}

func TestAdmitIsTransactional(t *testing.T) {
	t.Run("no token spent when every slot is held", func(t *testing.T) {
		cb := &countingBucket{Bucket: NewRateBucket(endpoint.Limits{RequestsPerSecond: 10, BurstCapacity: 5})}
		r := newRuntime(t, endpoint.Limits{RequestsPerSecond: 10, BurstCapacity: 5, MaxConcurrentRequests: 1}, Options{Bucket: cb})
		r.AdmitAt(t0, time.Time{})
		for range 3 {
			if _, b, _ := r.AdmitAt(t0, time.Time{}); b.Reason != BlockedByConcurrency {
				t.Fatalf("block = %v", b.Reason)
			}
		}
		if cb.takes != 1 || cb.TokensAt(t0) != 4 {
			t.Errorf("takes = %d, tokens = %v; want 1 and 4", cb.takes, cb.TokensAt(t0))
		}
	})
	t.Run("no token spent during a cooldown", func(t *testing.T) {
		cb := &countingBucket{Bucket: NewRateBucket(endpoint.Limits{RequestsPerSecond: 10, BurstCapacity: 5})}
		r := newRuntime(t, endpoint.Limits{RequestsPerSecond: 10, BurstCapacity: 5}, Options{Bucket: cb})
		r.RateLimitedAt(t0, 0)
		r.AdmitAt(t0, time.Time{})
		if cb.takes != 0 || r.InFlight() != 0 {
			t.Errorf("takes = %d, in flight = %d; want 0 and 0", cb.takes, r.InFlight())
		}
	})
	t.Run("slot given back when the token is missing", func(t *testing.T) {
		freed := 0
		r := newRuntime(t, endpoint.Limits{RequestsPerSecond: 10, BurstCapacity: 1, MaxConcurrentRequests: 3}, Options{OnSlotFreed: func() { freed++ }})
		r.AdmitAt(t0, time.Time{})
		for range 3 {
			if _, b, _ := r.AdmitAt(t0, time.Time{}); b.Reason != BlockedByRate || !b.Until.Equal(t0.Add(ms(100))) && !b.Until.Equal(t0.Add(ms(100)-1)) {
				t.Fatalf("block = %+v, want rate until +100ms", b)
			}
		}
		if r.InFlight() != 1 || freed != 0 {
			t.Errorf("in flight = %d, freed = %d; want 1 and 0", r.InFlight(), freed)
		}
	})
	t.Run("last slot not taken for a missing token", func(t *testing.T) {
		freed := 0
		r := newRuntime(t, endpoint.Limits{RequestsPerSecond: 10, BurstCapacity: 1, MaxConcurrentRequests: 2}, Options{OnSlotFreed: func() { freed++ }})
		r.AdmitAt(t0, time.Time{})
		if _, b, _ := r.AdmitAt(t0, time.Time{}); b.Reason != BlockedByRate {
			t.Fatalf("block = %v, want rate", b.Reason)
		}
		if r.InFlight() != 1 || freed != 0 {
			t.Errorf("in flight = %d, freed = %d; want 1 and 0 (the role never looked full)", r.InFlight(), freed)
		}
	})
	t.Run("a token taken by someone else after the check frees the last slot", func(t *testing.T) {
		freed := 0
		cb := &countingBucket{Bucket: NewRateBucket(endpoint.Limits{RequestsPerSecond: 10, BurstCapacity: 5})}
		r := newRuntime(t, endpoint.Limits{RequestsPerSecond: 10, BurstCapacity: 5, MaxConcurrentRequests: 1}, Options{Bucket: cb, OnSlotFreed: func() { freed++ }})
		cb.refuseNext = true
		if _, b, ok := r.AdmitAt(t0, time.Time{}); ok || b.Reason != BlockedByRate {
			t.Fatalf("admitted = %v, block = %v; want a rate refusal", ok, b.Reason)
		}
		if r.InFlight() != 0 || freed != 1 {
			t.Errorf("in flight = %d, freed = %d; want 0 and 1 (waiters that saw it full are woken)", r.InFlight(), freed)
		}
	})
}

// TestOnSlotFreedOnEveryRelease: the pool wakes one waiter per freed slot,
// so every Release says so, full or not; AdmitAt's give-back of a slot
// for a missing token says so only when the role looked full with it
// (the cases above).
func TestOnSlotFreedOnEveryRelease(t *testing.T) {
	freed := 0
	r := newRuntime(t, endpoint.Limits{MaxConcurrentRequests: 2}, Options{OnSlotFreed: func() { freed++ }})
	r.AdmitAt(t0, time.Time{})
	r.Release(Admission{}) // 1 -> 0: never full
	r.AdmitAt(t0, time.Time{})
	r.AdmitAt(t0, time.Time{})
	r.Release(Admission{}) // 2 -> 1: was full
	r.Release(Admission{}) // 1 -> 0
	if freed != 3 {
		t.Errorf("freed = %d, want 3", freed)
	}
	uncapped := 0
	u := newRuntime(t, endpoint.Limits{}, Options{OnSlotFreed: func() { uncapped++ }})
	u.AdmitAt(t0, time.Time{})
	u.Release(Admission{})
	if uncapped != 0 {
		t.Errorf("uncapped: freed = %d, want 0 (no request waits for a slot)", uncapped)
	}
	defer func() {
		if recover() == nil {
			t.Error("Release without a slot did not panic")
		}
	}()
	r.Release(Admission{})
}

func TestHealthTransitions(t *testing.T) {
	type step struct {
		do   string // admit, success, failure, ratelimit, wait
		d    time.Duration
		want endpoint.Health
	}
	var changes []string
	r := newRuntime(t, endpoint.Limits{PauseAfterRateLimit: 2 * time.Second}, Options{OnStateChange: func(from, to endpoint.Health) {
		changes = append(changes, from.String()+">"+to.String())
	}})
	now := t0
	var gen uint64
	steps := []step{
		{"admit", 0, endpoint.Available},
		{"success", 0, endpoint.Available},
		{"admit", 0, endpoint.Available},
		{"failure", 0, endpoint.Degraded},
		{"admit", 0, endpoint.Degraded},
		{"failure", 0, endpoint.Degraded},
		{"admit", 0, endpoint.Degraded},
		{"success", 0, endpoint.Available}, // degraded -> available
		{"admit", 0, endpoint.Available},
		{"ratelimit", 0, endpoint.RateLimited},
		{"wait", 2*time.Second - time.Millisecond, endpoint.RateLimited},
		{"wait", time.Millisecond, endpoint.Degraded}, // cooldown over, applied on read
		{"admit", 0, endpoint.Degraded},
		{"ratelimit", 0, endpoint.RateLimited}, // degraded -> rate limited
		{"wait", 2 * time.Second, endpoint.Degraded},
		{"admit", 0, endpoint.Degraded},
		{"success", 0, endpoint.Available},
	}
	for i, s := range steps {
		now = now.Add(s.d)
		switch s.do {
		case "admit":
			a, _, ok := r.AdmitAt(now, time.Time{})
			if !ok {
				t.Fatalf("step %d: admission refused", i)
			}
			gen = a.Generation
		case "success":
			r.SucceededAt(now, gen)
			r.Release(Admission{})
		case "failure":
			r.FailedAt(now, gen)
			r.Release(Admission{})
		case "ratelimit":
			r.RateLimitedAt(now, 0)
			r.Release(Admission{})
		}
		if got := r.StateAt(now); got != s.want {
			t.Fatalf("step %d (%s): state %v, want %v", i, s.do, got, s.want)
		}
	}
	want := "available>degraded degraded>available available>rate-limited rate-limited>degraded degraded>rate-limited rate-limited>degraded degraded>available"
	if got := joinStrings(changes); got != want {
		t.Errorf("changes:\n%s\nwant:\n%s", got, want)
	}
	snap := r.SnapshotAt(now)
	if snap.Successes != 3 || snap.Failures != 2 || snap.RateLimits != 2 {
		t.Errorf("counters = %d/%d/%d, want 3/2/2", snap.Successes, snap.Failures, snap.RateLimits)
	}
}

func joinStrings(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

// TestStaleOutcomeIgnored checks the generation rule: an outcome of a request
// admitted before the last transition is counted but does not move the
// state.
func TestStaleOutcomeIgnored(t *testing.T) {
	r := newRuntime(t, endpoint.Limits{}, Options{})
	old, _, _ := r.AdmitAt(t0, time.Time{})
	failing, _, _ := r.AdmitAt(t0, time.Time{})
	r.FailedAt(t0, failing.Generation)
	r.Release(Admission{})
	r.SucceededAt(t0, old.Generation) // admitted while available: says nothing now
	r.Release(Admission{})
	if got := r.StateAt(t0); got != endpoint.Degraded {
		t.Fatalf("state after a stale success = %v, want degraded", got)
	}
	fresh, _, _ := r.AdmitAt(t0, time.Time{})
	stale, _, _ := r.AdmitAt(t0, time.Time{})
	r.SucceededAt(t0, fresh.Generation)
	r.Release(Admission{})
	r.FailedAt(t0, stale.Generation) // admitted while degraded, now available: stale
	r.Release(Admission{})
	if got := r.StateAt(t0); got != endpoint.Available {
		t.Fatalf("state after a stale failure = %v, want available", got)
	}
	if s := r.SnapshotAt(t0); s.Successes != 2 || s.Failures != 2 {
		t.Errorf("stale outcomes not counted: %+v", s)
	}
}

// TestTimeNeverGoesBackwards: an instant older than one already used must
// not make the limiter refill the same interval twice.
func TestTimeNeverGoesBackwards(t *testing.T) {
	r := newRuntime(t, endpoint.Limits{RequestsPerSecond: 1, BurstCapacity: 2}, Options{})
	late := t0.Add(10 * time.Second)
	admitted := 0
	for _, at := range []time.Time{late, t0.Add(5 * time.Second), late, late, late} {
		if a, _, ok := r.AdmitAt(at, time.Time{}); ok {
			admitted++
			if at := r.AdmittedAt(a); at.Before(late) {
				t.Errorf("admitted at %v, before an instant already used", at.Sub(t0))
			}
		}
	}
	if admitted != 2 {
		t.Errorf("admitted %d at +10s, want the burst of 2", admitted)
	}
}

func TestSnapshotAt(t *testing.T) {
	r := newRuntime(t, endpoint.Limits{RequestsPerSecond: 4, MaxConcurrentRequests: 3, PauseAfterRateLimit: 3 * time.Second}, Options{})
	a, _, _ := r.AdmitAt(t0, time.Time{})
	r.AdmitAt(t0, time.Time{})
	r.RateLimitedAt(t0, 0)
	r.Release(Admission{})
	_ = a
	s := r.SnapshotAt(t0.Add(time.Second))
	want := endpoint.Snapshot{Name: "ep", Role: endpoint.RoleRead, State: endpoint.RateLimited, RequestsPerSecond: 4, Burst: 4, Tokens: 4,
		MaxConcurrent: 3, InFlight: 1, CooldownRemaining: 2 * time.Second, RateLimits: 1,
		Admitted: 2, Cost: time.Hour} // one request in flight and no latency sample: unsampledCost
	if !reflect.DeepEqual(s, want) {
		t.Errorf("snapshot = %+v\nwant       %+v", s, want)
	}
	u := newRuntime(t, endpoint.Limits{}, Options{}).SnapshotAt(t0)
	if !math.IsInf(u.Tokens, 1) || u.Burst != 0 || u.CooldownRemaining != 0 {
		t.Errorf("unlimited snapshot = %+v", u)
	}
}
