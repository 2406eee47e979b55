package admission_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/rolestate"
)

// deadlineErr waits for the Acquire and requires a *DeadlineError given up
// exactly at want (relative to t0), on the clock too.
func (pd *pending) deadlineErr(t *testing.T, fc *clockwork.FakeClock, want time.Duration) *admission.DeadlineError {
	t.Helper()
	r := pd.get(t)
	var de *admission.DeadlineError
	if !errors.Is(r.err, admission.ErrDeadline) || !errors.As(r.err, &de) {
		if r.pm != nil {
			r.pm.Release()
		}
		t.Fatalf("Acquire = (%v, %v), want a DeadlineError", r.pm != nil, r.err)
	}
	if de.Deadline.Sub(t0) != want || de.At.Sub(t0) != want || fc.Now().Sub(t0) != want {
		t.Fatalf("deadline +%v, gave up at +%v, clock +%v; want all +%v", de.Deadline.Sub(t0), de.At.Sub(t0), fc.Now().Sub(t0), want)
	}
	return de
}

// TestDeadlineNeverLate: with every candidate blocked, Acquire waits up to
// the default deadline (the smallest RequestTimeout), not 1ms less, and
// returns at it with every candidate's reason.
func TestDeadlineNeverLate(t *testing.T) {
	p, fc := newPool(t,
		ep("primary-a", 0, endpoint.Limits{RequestTimeout: 5 * time.Second}),
		ep("primary-b", 0, endpoint.Limits{MaxConcurrentRequests: 8, RequestTimeout: 2 * time.Second}),
		// One token every 2.04s: the next one comes 40ms after the deadline.
		ep("backup-a", 1, endpoint.Limits{RequestsPerSecond: 1 / 2.04, BurstCapacity: 1}),
	)
	only := func(name string) admission.Request {
		r := read
		r.Avoid = []string{"primary-a", "primary-b", "backup-a"}
		for i, n := range r.Avoid {
			if n == name {
				r.Avoid = append(r.Avoid[:i:i], r.Avoid[i+1:]...)
			}
		}
		return r
	}
	now(t, p, only("primary-a"), "primary-a").Done(rateLimited(3200 * time.Millisecond))
	var held []*admission.Permit
	for range 8 {
		held = append(held, now(t, p, only("primary-b"), "primary-b"))
	}
	now(t, p, only("backup-a"), "backup-a").Done(success())
	if d, _ := p.DefaultTimeout(read); d != 2*time.Second {
		t.Fatalf("DefaultTimeout = %v, want the smallest, 2s", d)
	}

	pd := start(context.Background(), p, read)
	pd.mustWait(t, fc, 1)
	fc.Advance(2*time.Second - ms(1))
	pd.mustWait(t, fc, 1)
	fc.Advance(ms(1))
	de := pd.deadlineErr(t, fc, 2*time.Second)
	want := "pool: getBalance (read): no endpoint admitted before the deadline: " +
		"primary-a: cooldown 1.2s left; primary-b: 8/8 in flight; backup-a: no token for 40ms"
	if de.Error() != want {
		t.Errorf("error:\n%s\nwant:\n%s", de.Error(), want)
	}
	if len(de.Candidates) != 3 || de.Candidates[2].Tier != 1 || de.Candidates[1].Block.Reason != rolestate.BlockedByConcurrency {
		t.Errorf("candidates = %+v", de.Candidates)
	}
	for _, pm := range held {
		pm.Release()
	}
}

// TestDeadlineNeverEarly: a candidate that frees before the deadline is
// taken, even 1ms before it; one that frees exactly at it is not.
func TestDeadlineNeverEarly(t *testing.T) {
	for _, tt := range []struct {
		name    string
		timeout time.Duration
		admit   bool
	}{
		{"token 1ms before the deadline", 101 * time.Millisecond, true},
		{"token at the deadline", 100 * time.Millisecond, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, fc := newPool(t, ep("a", 0, endpoint.Limits{RequestsPerSecond: 10, BurstCapacity: 1, RequestTimeout: tt.timeout}))
			now(t, p, read, "a").Done(success())
			pd := start(context.Background(), p, read)
			pd.waitsFor(t, fc, ms(100))
			if tt.admit {
				pm := pd.permit(t, "a")
				if pm.AdmittedAt().Sub(t0) != ms(100) || pm.Deadline().Sub(t0) != tt.timeout {
					t.Errorf("admitted at +%v under deadline +%v", pm.AdmittedAt().Sub(t0), pm.Deadline().Sub(t0))
				}
				pm.Done(success())
				return
			}
			pd.deadlineErr(t, fc, tt.timeout)
		})
	}
}

// TestDeadlineSources: a tighter Request.Deadline and a context deadline
// both cut the default; capabilities change which timeouts count; a past
// deadline fails at once without admitting.
func TestDeadlineSources(t *testing.T) {
	archive := ep("archive", 0, endpoint.Limits{MaxConcurrentRequests: 1, RequestTimeout: 3 * time.Second})
	archive.Capabilities = []string{"archive"}
	p, fc := newPool(t, archive, ep("plain", 0, endpoint.Limits{MaxConcurrentRequests: 1, RequestTimeout: time.Second}))
	withArchive := read
	withArchive.Capabilities = []string{"archive"}
	if d, _ := p.DefaultTimeout(withArchive); d != 3*time.Second {
		t.Fatalf("DefaultTimeout(archive) = %v, want 3s", d)
	}
	held := []*admission.Permit{now(t, p, withArchive, "archive")}
	plainOnly := read
	plainOnly.Avoid = []string{"archive"}
	held = append(held, now(t, p, plainOnly, "plain"))
	defer func() {
		for _, pm := range held {
			pm.Release()
		}
	}()

	// Default for archive: 3s, not the pool-wide 1s.
	pd := start(context.Background(), p, withArchive)
	pd.mustWait(t, fc, 1)
	fc.Advance(3*time.Second - ms(1))
	pd.mustWait(t, fc, 1)
	fc.Advance(ms(1))
	pd.deadlineErr(t, fc, 3*time.Second)

	// A tighter Request.Deadline.
	tight := read
	tight.Deadline = fc.Now().Add(ms(300))
	pd = start(context.Background(), p, tight)
	pd.mustWait(t, fc, 1)
	fc.Advance(ms(300))
	de := pd.deadlineErr(t, fc, 3*time.Second+ms(300))
	if de.Context != nil {
		t.Errorf("Context = %v, want nil for a Request.Deadline", de.Context)
	}

	// A context deadline on the pool's clock, tighter than the default.
	ctx, cancel := clockwork.WithTimeout(context.Background(), fc, ms(200))
	defer cancel()
	pd = start(ctx, p, read)
	pd.mustWait(t, fc, 2) // the context's timer and the pool's
	fc.Advance(ms(200))
	de = pd.deadlineErr(t, fc, 3*time.Second+ms(500))
	if !errors.Is(de, context.DeadlineExceeded) {
		t.Errorf("a context deadline does not match context.DeadlineExceeded: %v", de)
	}

	// Already past: at once, nothing admitted even though plain is free.
	held[1].Release()
	past := read
	past.Deadline = fc.Now()
	if _, err := p.Acquire(context.Background(), past); !errors.Is(err, admission.ErrDeadline) {
		t.Fatalf("Acquire with a past deadline = %v", err)
	}
	if p.Outstanding() != 1 {
		t.Errorf("Outstanding = %d, want 1", p.Outstanding())
	}
}

func TestDeadlineErrorMatching(t *testing.T) {
	err := error(&admission.DeadlineError{Method: "m", Context: context.DeadlineExceeded})
	if !errors.Is(err, admission.ErrDeadline) || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, admission.ErrNoEndpoint) {
		t.Errorf("matching of %v is wrong", err)
	}
	if !strings.HasPrefix(err.Error(), "pool: ") {
		t.Errorf("message %q lacks the package prefix", err)
	}
}
