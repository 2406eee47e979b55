package admission_test

// A provider's rate limit and an ejection are two blocks: panic mode
// passes the second, never the first (a review, stop 34).

import (
	"math"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/pool"
)

// hookBucket is an unlimited bucket that runs onTake inside TakeAt: the
// instant inside AdmitAt after the cooldown check and before the
// admission's generation is read. Another goroutine's outcome landing
// there is an ordinary interleaving; the hook only makes it land there
// every time. (TakeAt runs on the Acquire's goroutine, which here is the
// test's: no data race.)
type hookBucket struct{ onTake func() }

func (b *hookBucket) TakeAt(time.Time) bool {
	if f := b.onTake; f != nil {
		b.onTake = nil
		f()
	}
	return true
}
func (b *hookBucket) ReadyAt(t time.Time) time.Time { return t }
func (b *hookBucket) TokensAt(time.Time) float64    { return math.Inf(1) }

// TestPanicModeNeverAdmitsInsideRetryAfter: a provider answers 429 with
// Retry-After: 30 s (a batch member: Throttled) while a second request is
// being admitted; that request, sent, fails at +25 s and ejects the
// endpoint for 10 s. The one cooldown instant now says "ejected until
// +35 s" (one instant held both), and panic mode (the only candidate is
// ejected) passed an ejection: a permit was granted at +25 s, 5 s inside
// the provider's Retry-After. plans/001-endpoint-pool.md:128 and AdmitEjectedAt's doc: in
// panic mode "a rate-limit cooldown ... still appl[ies]".
func TestPanicModeNeverAdmitsInsideRetryAfter(t *testing.T) {
	hb := &hookBucket{}
	p, fc := newPoolWith(t, func(s *pool.Settings, o *admission.Options) {
		s.Ejection = endpoint.Ejection{After: 1, Base: 10 * time.Second, Max: time.Minute}
		o.NewBucket = func(*endpoint.Spec, endpoint.Role) pool.Bucket { return hb }
	}, ep("a", 0, endpoint.Limits{}))

	first := p.TryAcquire(read)
	if first == nil {
		t.Fatal("no first permit")
	}
	hb.onTake = func() { first.Throttled(30 * time.Second) }
	second := p.TryAcquire(read) // admitted as the 429 lands
	if second == nil {
		t.Fatal("no second permit")
	}
	first.Done(success())
	if s := snapshotOf(t, p, "a"); s.State != endpoint.RateLimited || s.CooldownRemaining != 30*time.Second {
		t.Fatalf("after the 429: %v, cooldown %v; want rate-limited for 30s", s.State, s.CooldownRemaining)
	}

	fc.Advance(25 * time.Second)
	second.Done(failure()) // After = 1: ejected for 10 s, to +35 s
	s := snapshotOf(t, p, "a")
	t.Logf("at +25s: state %v, cooldown %v, rate limits %d, ejections %d", s.State, s.CooldownRemaining, s.RateLimits, s.Ejections)
	if pm := p.TryAcquire(read); pm != nil {
		pm.Release()
		t.Errorf("panic mode granted a permit at +25s, inside the provider's Retry-After of 30s (state %v)", s.State)
	}
}

// TestRateLimitDuringEjectionEndsWithItsPause: the only
// endpoint is ejected for 2 s; a panic-mode request meets a 429 without
// Retry-After (pause 1 s). The state became RateLimited for the
// ejection's 2 s: at +1.5 s, the provider's pause over and the ejection
// still running, panic mode was refused ("cooldown 500ms left") where
// AdmitEjectedAt promises that a running ejection does not block (only
// the rate-limit cooldown does, and it is over). The snapshot says
// said rate-limited for 500 ms more: neither what the provider asked nor
// that the endpoint is ejected.
func TestRateLimitDuringEjectionEndsWithItsPause(t *testing.T) {
	p, fc := newPoolWith(t, func(s *pool.Settings, _ *admission.Options) {
		s.Ejection = endpoint.Ejection{After: 1, Base: 2 * time.Second, Max: 2 * time.Second}
	}, ep("a", 0, endpoint.Limits{PauseAfterRateLimit: time.Second}))
	failOn(t, p, "a") // ejected until +2 s
	pm := p.TryAcquire(read)
	if pm == nil {
		t.Fatal("panic mode refused the ejected endpoint")
	}
	pm.Done(rateLimited(0)) // the provider's pause: 1 s

	fc.Advance(1500 * time.Millisecond)
	s := snapshotOf(t, p, "a")
	if s.State != endpoint.Ejected || s.CooldownRemaining != 500*time.Millisecond {
		t.Errorf("at +1.5s: state %v, cooldown %v; want ejected for 500ms (the 1s pause is over)", s.State, s.CooldownRemaining)
	}
	pm = p.TryAcquire(read)
	if pm == nil {
		t.Errorf("at +1.5s panic mode refused the endpoint: the 1s rate-limit pause is over and only the ejection runs")
	} else {
		pm.Done(success())
	}
}
