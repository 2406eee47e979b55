package engine_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/fixturespec"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// epoch is the fake clocks' start.
var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// noJitter makes every backoff 0, so retries need no clock advance.
func noJitter(time.Duration) time.Duration { return 0 }

// env is a cluster of fake endpoints, a pool over them on a fake clock and
// a transport client, all closed at the end of the test.
type env struct {
	t       *testing.T
	cluster *fixtures.Cluster
	pool    *admission.Pool
	client  *engine.Engine
	clock   *clockwork.FakeClock
	logs    *syncBuffer
}

// member is a cluster member with default limits (RequestTimeout 1 s).
func member(name string, tier int) fixtures.Member {
	l := endpoint.Limits{RequestTimeout: time.Second}
	return fixtures.Member{Name: name, Tier: tier,
		Read: &l, Send: &l}
}

// conf is what a test sets of a client: a zero field takes the default
// (transport.DefaultSettings, with no jitter).
type conf struct {
	OnAttempt        func(context.Context, string, transport.Attempt)
	Logger           *slog.Logger
	Registry         *methods.Registry
	MaxResponseBytes int64
	AttemptTimeout   time.Duration
	HedgeAfter       time.Duration
	// Retry edits the default retry settings (Jitter already noJitter).
	Retry func(*retrypolicy.Settings)
	// NoMonotonic turns monotonic reads off; Genesis and SlotProbe set
	// the cluster guard and the slot probe.
	NoMonotonic bool
	Genesis     string
	SlotProbe   time.Duration
	// ResponseBudget is Settings.ResponseBudgetBytes (0: the default).
	ResponseBudget int64
}

// build returns the settings and options of c.
func (c conf) build() (transport.Settings, engine.Options) {
	s := transport.DefaultSettings()
	s.Retry.Jitter = noJitter
	if c.Retry != nil {
		c.Retry(&s.Retry)
	}
	if c.MaxResponseBytes != 0 {
		s.MaxResponseBytes = c.MaxResponseBytes
	}
	s.ResponseBudgetBytes = c.ResponseBudget
	s.AttemptTimeout, s.HedgeAfter = c.AttemptTimeout, c.HedgeAfter
	s.MonotonicReads = !c.NoMonotonic
	s.SlotProbeInterval = c.SlotProbe
	o := engine.Options{Logger: c.Logger, Registry: c.Registry, Genesis: c.Genesis}
	if c.OnAttempt != nil {
		o.Observers = []transport.Observer{engine.AttemptFunc(c.OnAttempt)}
	}
	return s, o
}

// newClient builds a transport client over p with c, failing the test on
// error.
func newClient(t testing.TB, p *admission.Pool, c conf) *engine.Engine {
	t.Helper()
	s, o := c.build()
	tc, err := engine.New(p, s, o)
	if err != nil {
		t.Fatal(err)
	}
	return tc
}

// noRetries turns counted retries off.
func noRetries(r *retrypolicy.Settings) { r.MaxRetries = 0 }

// newEnv starts members; edit may change the specs (URLs, headers) before
// the pool is built.
func newEnv(t *testing.T, members []fixtures.Member, s conf, edit func([]endpoint.Spec)) *env {
	t.Helper()
	return newEnvWith(t, members, s, pool.DefaultSettings(), edit)
}

// newEnvWith is newEnv with pool settings ps.
func newEnvWith(t *testing.T, members []fixtures.Member, s conf, ps pool.Settings, edit func([]endpoint.Spec)) *env {
	t.Helper()
	return newEnvClocks(t, members, s, ps, edit, false)
}

// newEnvOneClock is newEnv with the servers on the pool's clock: a
// fixtures.Latency fault answers when the test advances that clock past
// it, so attempts take their latency in fake time.
func newEnvOneClock(t *testing.T, members []fixtures.Member, s conf) *env {
	t.Helper()
	return newEnvClocks(t, members, s, pool.DefaultSettings(), nil, true)
}

// newEnvClocks is newEnvWith, with the servers on the pool's clock when
// oneClock is set, else on a clock of their own that never moves (server
// delays never end).
func newEnvClocks(t *testing.T, members []fixtures.Member, s conf, ps pool.Settings, edit func([]endpoint.Spec), oneClock bool) *env {
	t.Helper()
	clock := clockwork.NewFakeClockAt(epoch)
	serverClock := clockwork.NewFakeClockAt(epoch)
	if oneClock {
		serverClock = clock
	}
	for i := range members {
		members[i].Options.Clock = serverClock
	}
	cl := fixtures.NewCluster(members)
	specs := fixturespec.Specs(cl)
	if edit != nil {
		edit(specs)
	}
	logs := &syncBuffer{}
	p, err := admission.New(specs, ps, admission.Options{Clock: clock,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		cl.Close()
		t.Fatal(err)
	}
	if s.Logger == nil {
		s.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	ts, to := s.build()
	c, err := engine.New(p, ts, to)
	if err != nil {
		cl.Close()
		t.Fatal(err)
	}
	e := &env{t: t, cluster: cl, pool: p, client: c, clock: clock, logs: logs}
	t.Cleanup(func() {
		cl.Close()
		_ = c.Close()
	})
	return e
}

func (e *env) server(name string) *fixtures.Server { return e.cluster.Server(name) }

// async runs f on its own goroutine.
func async(f func() error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	return ch
}

// expire waits until s has read n requests and an attempt timer is
// pending on the pool's clock, then advances the clock by d.
func (e *env) expire(s *fixtures.Server, n int, d time.Duration) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.WaitRequests(ctx, n); err != nil {
		e.t.Fatalf("server never got request %d: %v", n, err)
	}
	if err := e.clock.BlockUntilContext(ctx, 1); err != nil {
		e.t.Fatalf("no attempt timer: %v", err)
	}
	e.clock.Advance(d)
}

// wait returns the result of ch, failing the test if it never comes.
func wait(t *testing.T, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(10 * time.Second): // a guard against a hung test, not a measurement
		t.Fatal("call never returned")
		return nil
	}
}

// callErr asserts err is a *CallError and returns it.
func callErr(t *testing.T, err error) *transport.CallError {
	t.Helper()
	ce, ok := err.(*transport.CallError)
	if !ok {
		t.Fatalf("error %T %v, want *transport.CallError", err, err)
	}
	return ce
}

// endpoints lists the endpoint of each attempt.
func endpoints(as []transport.Attempt) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Endpoint
	}
	return out
}

// recorder collects OnAttempt calls.
type recorder struct{ ch chan transport.Attempt }

func newRecorder() *recorder { return &recorder{ch: make(chan transport.Attempt, 64)} }

func (r *recorder) on(_ context.Context, _ string, a transport.Attempt) { r.ch <- a }

func (r *recorder) drain() []transport.Attempt {
	var out []transport.Attempt
	for {
		select {
		case a := <-r.ch:
			out = append(out, a)
		default:
			return out
		}
	}
}

// declared is r with ms declared.
func declared(t testing.TB, r *methods.Registry, ms ...methods.Method) *methods.Registry {
	t.Helper()
	for _, m := range ms {
		var err error
		if r, err = r.Declare(m); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// named is m declared as name.
func named(name string, m methods.Method) methods.Method {
	m.Name = name
	return m
}
