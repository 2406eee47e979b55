package admission_test

import (
	"context"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// ep is a read-only endpoint spec.
func ep(name string, tier int, l endpoint.Limits) endpoint.Spec {
	return endpoint.Spec{
		Name:  name,
		URL:   endpoint.NewSecret("https://" + name + ".example.com/"),
		Tier:  tier,
		Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: l},
	}
}

var read = admission.Request{Role: endpoint.RoleRead, Method: "getBalance"}

// newPool builds a pool on a fake clock at t0 and checks, when the test
// ends, that every permit was given back.
func newPool(t *testing.T, specs ...endpoint.Spec) (*admission.Pool, *clockwork.FakeClock) {
	t.Helper()
	return newPoolWith(t, nil, specs...)
}

// newPoolWith is newPool with edit applied to the default settings and
// options (their Clock is replaced by the fake one). edit may be nil.
func newPoolWith(t *testing.T, edit func(*pool.Settings, *admission.Options), specs ...endpoint.Spec) (*admission.Pool, *clockwork.FakeClock) {
	t.Helper()
	fc := clockwork.NewFakeClockAt(t0)
	return newPoolOn(t, fc, edit, specs...), fc
}

// newPoolOn is newPoolWith on clock, a fake clock at t0.
func newPoolOn(t *testing.T, clock clockwork.Clock, edit func(*pool.Settings, *admission.Options), specs ...endpoint.Spec) *admission.Pool {
	t.Helper()
	s, opts := pool.DefaultSettings(), admission.Options{Seed: 1}
	if edit != nil {
		edit(&s, &opts)
	}
	opts.Clock = clock
	p, err := admission.New(specs, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if n := p.Outstanding(); n != 0 && !t.Failed() {
			t.Errorf("%d permits dropped without release", n)
		}
	})
	return p
}

// guard bounds a wait on another goroutine in real time, so that a broken
// test fails instead of hanging. It is never what a test asserts on.
func guard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

type result struct {
	pm  *admission.Permit
	err error
}

// pending is an Acquire running in its own goroutine.
type pending struct{ ch chan result }

func start(ctx context.Context, p *admission.Pool, req admission.Request) *pending {
	pd := &pending{ch: make(chan result, 1)}
	go func() {
		pm, err := p.Acquire(ctx, req)
		pd.ch <- result{pm, err}
	}()
	return pd
}

// mustWait proves the Acquire still waits: the fake clock has n waiters
// (every blocked goroutine of the test holds one timer) and no result came.
func (pd *pending) mustWait(t *testing.T, fc *clockwork.FakeClock, n int) {
	t.Helper()
	if err := fc.BlockUntilContext(guard(t), n); err != nil {
		select {
		case r := <-pd.ch:
			t.Fatalf("Acquire returned (%v, %v) instead of waiting", r.pm != nil, r.err)
		default:
			t.Fatalf("fewer than %d clock waiters: %v", n, err)
		}
	}
	select {
	case r := <-pd.ch:
		t.Fatalf("Acquire returned (%v, %v) instead of waiting", r.pm != nil, r.err)
	default:
	}
}

// waitsFor proves the Acquire, the test's only waiter, waits exactly d
// more on the fake clock: still waiting 1ms short of d, and the clock then
// advanced to d.
func (pd *pending) waitsFor(t *testing.T, fc *clockwork.FakeClock, d time.Duration) {
	t.Helper()
	pd.mustWait(t, fc, 1)
	fc.Advance(d - ms(1))
	pd.mustWait(t, fc, 1)
	fc.Advance(ms(1))
}

// tally acquires n permits for read on the fast path, reports a success
// for each, and counts them by endpoint.
func tally(t *testing.T, p *admission.Pool, n int) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for range n {
		pm, err := p.Acquire(context.Background(), read)
		if err != nil {
			t.Fatal(err)
		}
		counts[pm.Endpoint()]++
		pm.Done(success())
	}
	return counts
}

// get waits for the Acquire's result.
func (pd *pending) get(t *testing.T) result {
	t.Helper()
	select {
	case r := <-pd.ch:
		return r
	case <-guard(t).Done():
		t.Fatal("Acquire did not return")
		return result{}
	}
}

// timerClock is a fake clock that reports every timer the pool starts, by
// its duration, once the timer is set. BlockUntil cannot tell a waiter's
// new timer from the one it still holds after a wakeup (it is set until
// the waiter runs again and stops it); a test that advances the clock on
// that old timer spends the advance on no one. Waiting for the report
// instead is a point after which the waiter has scanned and sleeps on the
// timer reported.
type timerClock struct {
	*clockwork.FakeClock
	started chan time.Duration
}

// NewTimer starts the timer, then reports it.
func (c *timerClock) NewTimer(d time.Duration) clockwork.Timer {
	tm := c.FakeClock.NewTimer(d)
	c.started <- d
	return tm
}

// newPoolTimers is newPool on a timerClock.
func newPoolTimers(t *testing.T, specs ...endpoint.Spec) (*admission.Pool, *timerClock) {
	t.Helper()
	// Room for every timer a test starts: a blocked report would hold the
	// waiter past the test's end.
	tc := &timerClock{FakeClock: clockwork.NewFakeClockAt(t0), started: make(chan time.Duration, 64)}
	return newPoolOn(t, tc, nil, specs...), tc
}

// timerStarted waits for the next timer the pool starts and requires it
// to be of d.
func (c *timerClock) timerStarted(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case got := <-c.started:
		if got != d {
			t.Fatalf("the waiter set a timer of %v, want %v", got, d)
		}
	case <-guard(t).Done():
		t.Fatalf("no timer started (want one of %v): the waiter was not woken", d)
	}
}

// permit waits for the Acquire and requires a permit from endpoint name.
func (pd *pending) permit(t *testing.T, name string) *admission.Permit {
	t.Helper()
	r := pd.get(t)
	if r.err != nil {
		t.Fatalf("Acquire: %v", r.err)
	}
	if r.pm.Endpoint() != name {
		r.pm.Release()
		t.Fatalf("permit from %s, want %s", r.pm.Endpoint(), name)
	}
	return r.pm
}

// now acquires without waiting (the fast path) and requires endpoint name.
func now(t *testing.T, p *admission.Pool, req admission.Request, name string) *admission.Permit {
	t.Helper()
	return start(context.Background(), p, req).permit(t, name)
}

func snapshotOf(t *testing.T, p *admission.Pool, name string) endpoint.Snapshot {
	t.Helper()
	for _, s := range p.Snapshot() {
		if s.Name == name && s.Role == endpoint.RoleRead {
			return s
		}
	}
	t.Fatalf("no snapshot for %s", name)
	return endpoint.Snapshot{}
}

// success is the outcome of an attempt the endpoint answered.
func success() retrypolicy.Outcome {
	return retrypolicy.Outcome{Dispatch: retrypolicy.Answered, HTTPStatus: 200}
}

// failure is an endpoint's failure that proves nothing was sent (a
// refused connection): it counts toward ejection and puts nothing in
// doubt.
func failure() retrypolicy.Outcome {
	return retrypolicy.Outcome{Cause: retrypolicy.Connection, Dispatch: retrypolicy.NotDispatched,
		Fault: retrypolicy.EndpointFault}
}

// doubtful is an endpoint's failure after the request was written (a
// reset): a failure that also puts the endpoint in doubt.
func doubtful() retrypolicy.Outcome {
	return retrypolicy.Outcome{Cause: retrypolicy.Connection, Dispatch: retrypolicy.MaybeDispatched,
		Fault: retrypolicy.EndpointFault}
}

// rateLimited is an HTTP 429 with the provider's delay d (0: none).
func rateLimited(d time.Duration) retrypolicy.Outcome {
	return retrypolicy.Outcome{Cause: retrypolicy.RateLimited, Dispatch: retrypolicy.Answered,
		HTTPStatus: 429, ProviderDelay: d, Fault: retrypolicy.EndpointFault}
}

// failOn reports a failure of a read admitted on endpoint name, whatever
// the balancing would have chosen: every other endpoint is avoided.
func failOn(t *testing.T, p *admission.Pool, name string) {
	t.Helper()
	req := read
	for _, s := range p.Snapshot() {
		if s.Name != name && s.Role == endpoint.RoleRead {
			req.Avoid = append(req.Avoid, s.Name)
		}
	}
	now(t, p, req, name).Done(failure())
}

// getAdvancing waits for the Acquire, advancing fc by step each time the
// Acquire holds a timer on it. Sound only while nothing wakes the waiter
// meanwhile (no release): a woken waiter not yet scheduled leaves its old
// timer registered, and advancing on it spends time on no one (see
// TestFallback, which waits for the new timer instead).

func (pd *pending) getAdvancing(t *testing.T, fc *clockwork.FakeClock, step time.Duration) result {
	t.Helper()
	ctx := guard(t)
	for {
		waiting := make(chan error, 1)
		wctx, cancel := context.WithCancel(ctx)
		go func() { waiting <- fc.BlockUntilContext(wctx, 1) }()
		select {
		case r := <-pd.ch:
			cancel()
			<-waiting
			return r
		case err := <-waiting:
			cancel()
			if err != nil {
				t.Fatal("Acquire did not return")
			}
			fc.Advance(step)
		}
	}
}
