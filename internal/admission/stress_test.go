package admission_test

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/pool"
)

// TestStress runs hundreds of goroutines against a small pool on a fake
// clock and checks the invariants on every step: in flight never above the
// cap; admissions in any window at most RPS*window + burst; every Acquire
// ends, with a permit admitted before its deadline or a DeadlineError given
// up at it, never before; every permit released. Ejections are short, so
// endpoints are ejected and readmitted many times during the run.
//
// The driver advances the clock only when every worker holds a timer on it
// (its hold, or Acquire's wait timer). A worker woken by a release still
// holds its timer while it scans again, so that is not strict quiescence:
// how late a DeadlineError is observed is checked exactly by
// TestDeadlineNeverLate, not here.
func TestStress(t *testing.T) {
	const (
		workers = 200
		steps   = 300
		step    = 2 * time.Millisecond
	)
	specs := []endpoint.Spec{
		ep("a", 0, endpoint.Limits{RequestsPerSecond: 400, BurstCapacity: 10, MaxConcurrentRequests: 4, PauseAfterRateLimit: 20 * time.Millisecond}),
		ep("b", 0, endpoint.Limits{RequestsPerSecond: 150, BurstCapacity: 3, MaxConcurrentRequests: 6, PauseAfterRateLimit: 30 * time.Millisecond}),
		ep("c", 0, endpoint.Limits{MaxConcurrentRequests: 3}),
		ep("d", 1, endpoint.Limits{RequestsPerSecond: 100, MaxConcurrentRequests: 8}),
		ep("e", 2, endpoint.Limits{RequestsPerSecond: 50, BurstCapacity: 1}),
	}
	limits := map[string]endpoint.Limits{}
	inFlight := map[string]*atomic.Int64{}
	for _, s := range specs {
		limits[s.Name] = s.Roles[endpoint.RoleRead].Normalized()
		inFlight[s.Name] = new(atomic.Int64)
	}
	// Every failure of the current generation ejects, briefly, so that
	// endpoints are ejected and come back many times within the run (with
	// 200 workers most failures are stale: After 2 ejects only a few times).
	var ejections atomic.Int64
	p, fc := newPoolWith(t, func(s *pool.Settings, o *admission.Options) {
		s.Ejection = endpoint.Ejection{After: 1, Base: 4 * time.Millisecond, Max: 16 * time.Millisecond}
		o.Logger = slog.New(ejectionCounter{&ejections})
	}, specs...)

	var (
		stop      atomic.Bool
		mu        sync.Mutex
		admitted  = map[string][]time.Time{}
		permits   atomic.Int64
		deadlines atomic.Int64
		wg        sync.WaitGroup
	)
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for !stop.Load() {
				req := read
				req.Deadline = fc.Now().Add(time.Duration(5+rng.IntN(100)) * time.Millisecond)
				if rng.IntN(10) == 0 {
					req.Avoid = []string{specs[rng.IntN(len(specs))].Name}
				}
				pm, err := p.Acquire(context.Background(), req)
				if err != nil {
					checkDeadlineError(t, err, req.Deadline)
					deadlines.Add(1)
					continue
				}
				permits.Add(1)
				name := pm.Endpoint()
				if !pm.AdmittedAt().Before(req.Deadline) || !pm.Deadline().Equal(req.Deadline) {
					t.Errorf("%s: admitted at +%v for a deadline at +%v", name, pm.AdmittedAt().Sub(t0), req.Deadline.Sub(t0))
				}
				if n, limit := inFlight[name].Add(1), limits[name].MaxConcurrentRequests; limit > 0 && n > int64(limit) {
					t.Errorf("%s: %d in flight, cap %d", name, n, limit)
				}
				mu.Lock()
				admitted[name] = append(admitted[name], pm.AdmittedAt())
				mu.Unlock()
				<-fc.After(time.Duration(1+rng.IntN(15)) * time.Millisecond)
				inFlight[name].Add(-1)
				switch x := rng.IntN(20); {
				case x < 15:
					pm.Done(success())
				case x < 17:
					pm.Done(failure())
				case x < 18:
					pm.Done(rateLimited(time.Duration(rng.IntN(40)) * time.Millisecond))
				default:
					pm.Release()
				}
			}
		})
	}

	// A guard against a hang for the whole run, not a measurement: 300
	// steps of 200 workers under -race take 2–4 s here, and far longer on a
	// machine busy with other work.
	g, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for s := range steps {
		if err := fc.BlockUntilContext(g, workers); err != nil {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			t.Fatalf("step %d: workers never all blocked: %v\n%s", s, err, buf[:n])
		}
		for _, snap := range p.Snapshot() {
			if snap.MaxConcurrent > 0 && snap.InFlight > snap.MaxConcurrent {
				t.Fatalf("step %d: %s has %d in flight, cap %d", s, snap.Name, snap.InFlight, snap.MaxConcurrent)
			}
		}
		fc.Advance(step)
	}
	stop.Store(true)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for drained := false; !drained; {
		select {
		case <-done:
			drained = true
		case <-g.Done():
			t.Fatal("workers did not finish")
		default:
			fc.Advance(step)
			runtime.Gosched()
		}
	}

	if p.Outstanding() != 0 {
		t.Errorf("%d permits not released", p.Outstanding())
	}
	if permits.Load() < 200 || deadlines.Load() < 50 || ejections.Load() == 0 {
		t.Errorf("too little exercised: %d permits, %d deadline errors, %d ejections", permits.Load(), deadlines.Load(), ejections.Load())
	}
	for name, times := range admitted {
		checkWindows(t, name, limits[name], times)
	}
	t.Logf("%d permits, %d deadline errors, %d ejections", permits.Load(), deadlines.Load(), ejections.Load())
}

// checkDeadlineError: a *DeadlineError for this deadline, given up at it or
// after, never before.
func checkDeadlineError(t *testing.T, err error, deadline time.Time) {
	var de *admission.DeadlineError
	if !errors.As(err, &de) || !errors.Is(err, admission.ErrDeadline) {
		t.Errorf("Acquire: %v, want a DeadlineError", err)
		return
	}
	if !de.Deadline.Equal(deadline) || de.At.Before(deadline) {
		t.Errorf("gave up at +%v for a deadline at +%v (error's deadline +%v)", de.At.Sub(t0), deadline.Sub(t0), de.Deadline.Sub(t0))
	}
}

// checkWindows: for every pair of admissions i <= j, j-i+1 <= burst +
// RPS * (t_j - t_i).
func checkWindows(t *testing.T, name string, l endpoint.Limits, times []time.Time) {
	if l.RequestsPerSecond == 0 {
		return
	}
	slices.SortFunc(times, time.Time.Compare)
	for i := range times {
		for j := i; j < len(times); j++ {
			allowed := float64(l.BurstCapacity) + l.RequestsPerSecond*times[j].Sub(times[i]).Seconds()
			if float64(j-i+1) > allowed+1e-6 {
				t.Errorf("%s: %d admissions in %v, at most %.3f allowed", name, j-i+1, times[j].Sub(times[i]), allowed)
				return
			}
		}
	}
}

// ejectionCounter is a slog.Handler that counts the pool's state changes
// to Ejected and drops everything else.
type ejectionCounter struct{ n *atomic.Int64 }

func (h ejectionCounter) Enabled(context.Context, slog.Level) bool { return true }

func (h ejectionCounter) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "to" && a.Value.String() == endpoint.Ejected.String() {
			h.n.Add(1)
			return false
		}
		return true
	})
	return nil
}

func (h ejectionCounter) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h ejectionCounter) WithGroup(string) slog.Handler      { return h }
