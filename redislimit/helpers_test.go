package redislimit

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/redistest"
)

// answerWait bounds how long a test waits, in real time, for Redis to
// answer one lease request.
const answerWait = 10 * time.Second

// rig is a Limiter on a fake clock against a real server, with a channel
// that receives one value per answered request or probe; got counts those
// received.
type rig struct {
	t       *testing.T
	srv     *redistest.Server
	clock   *clockwork.FakeClock
	l       *Limiter
	answers chan struct{}
	got     int
	logs    *syncBuffer
}

// syncBuffer is a bytes.Buffer safe for concurrent writes (the limiter
// logs from request goroutines).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// marker is a secret planted in Redis URLs; no error, log line or printed
// value may show it.
const marker = "ReDiSmArKeR"

// epoch is the fake clock's start: any instant works, the script takes
// the caller's.
var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// newRig starts a server (unless srv is given) and a Limiter on it with s
// (Backend, URL and Replicas filled in when left out) and opts (Logger
// filled in; a fake clock unless opts.Clock is one).
func newRig(t *testing.T, srv *redistest.Server, s config.Limits, opts Options) *rig {
	t.Helper()
	if srv == nil {
		srv = redistest.Start(t, redistest.Options{})
	}
	clock, ok := opts.Clock.(*clockwork.FakeClock)
	if !ok {
		clock = clockwork.NewFakeClockAt(epoch)
	}
	r := &rig{t: t, srv: srv, clock: clock, answers: make(chan struct{}, 1024), logs: &syncBuffer{}}
	s.Backend = config.BackendRedis
	if s.URL.IsZero() {
		s.URL = endpoint.NewSecret(srv.URL())
	}
	if s.Replicas == 0 {
		s.Replicas = 1
	}
	opts.Clock = r.clock
	opts.Logger = slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	l, err := New(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	l.onAnswer = func() { r.answers <- struct{}{} }
	r.l = l
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return r
}

// bucket returns the bucket of an endpoint named name with one role of
// rate and burst.
func (r *rig) bucket(name string, rate float64, burst int) *bucket {
	spec := &endpoint.Spec{Name: name, URL: endpoint.NewSecret("https://x.example/"),
		Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {RequestsPerSecond: rate, BurstCapacity: burst}}}
	return r.l.NewBucket(spec, endpoint.RoleRead).(*bucket)
}

// answered waits for n answers.
func (r *rig) answered(n int) {
	r.t.Helper()
	timer := time.NewTimer(answerWait)
	defer timer.Stop()
	for range n {
		select {
		case <-r.answers:
			r.got++
		case <-timer.C:
			r.t.Fatalf("no answer from redis in %v", answerWait)
		}
	}
}

// settle waits until every request and probe the limiter started (or a
// due probe timer is about to start) has been answered; it reports
// whether there was any to wait for.
func (r *rig) settle() bool {
	r.t.Helper()
	waited := false
	for r.got < pending(r.l) {
		r.answered(1)
		waited = true
	}
	return waited
}

// take calls TakeAt at the clock's instant and waits for the answers of
// what that started; it returns TakeAt's result.
func (r *rig) take(b *bucket) bool {
	r.t.Helper()
	ok := b.TakeAt(r.clock.Now())
	r.settle()
	return ok
}

// advance moves the clock by d and waits for what its timers started
// (the probe, and the requests an answer to it starts).
func (r *rig) advance(d time.Duration) {
	r.t.Helper()
	r.clock.Advance(d)
	r.settle()
}

// takeOrWait is an admission as the pool makes it: TakeAt, and on a
// refusal the clock moves to ReadyAt and it tries again, until a token
// comes; it returns the instant of the admission.
func (r *rig) takeOrWait(b *bucket) time.Time {
	r.t.Helper()
	for range 10000 {
		if r.take(b) {
			return r.clock.Now()
		}
		now := r.clock.Now()
		ready := b.ReadyAt(now)
		if r.settle() || !ready.After(now) {
			// A request landed between TakeAt and ReadyAt: try again.
			continue
		}
		r.advance(ready.Sub(now))
	}
	r.t.Fatal("no admission after 10000 waits")
	return time.Time{}
}
