package admission_test

import (
	"container/heap"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
)

// A workload on the fake clock: one call every tick, each answered after
// the latency its endpoint has at that moment (or failed after a
// timeout), completions delivered in time order. It measures who gets
// the calls; no real time passes.

// completion is a permit due to report its outcome at due.
type completion struct {
	due  time.Time
	pm   *admission.Permit
	fail bool
}

type completions []completion

func (c completions) Len() int           { return len(c) }
func (c completions) Less(i, j int) bool { return c[i].due.Before(c[j].due) }
func (c completions) Swap(i, j int)      { c[i], c[j] = c[j], c[i] }
func (c *completions) Push(x any)        { *c = append(*c, x.(completion)) }
func (c *completions) Pop() any {
	old := *c
	x := old[len(old)-1]
	*c = old[:len(old)-1]
	return x
}

// behaviour is how an endpoint answers at one moment: after latency, or
// (hang) never, failing at the caller's attempt timeout.
type behaviour struct {
	latency time.Duration
	hang    bool
}

// workload drives a pool on its fake clock.
type workload struct {
	t       *testing.T
	p       *admission.Pool
	fc      *clockwork.FakeClock
	pending completions
	// timeout is the attempt timeout that ends a hanging call.
	timeout time.Duration
}

func newWorkload(t *testing.T, names ...string) *workload {
	specs := make([]endpoint.Spec, len(names))
	for i, n := range names {
		specs[i] = ep(n, 0, endpoint.Limits{})
	}
	p, fc := newPool(t, specs...)
	return &workload{t: t, p: p, fc: fc, timeout: 500 * time.Millisecond}
}

// run makes n calls, one per tick, each endpoint answering as behave says
// for call i, and counts the calls each endpoint got.
func (w *workload) run(n int, tick time.Duration, behave func(name string, i int) behaviour) map[string]int {
	w.t.Helper()
	got := map[string]int{}
	for i := range n {
		w.settle(w.fc.Now())
		pm, err := w.p.Acquire(context.Background(), read)
		if err != nil {
			w.t.Fatal(err)
		}
		got[pm.Endpoint()]++
		b := behave(pm.Endpoint(), i)
		c := completion{due: w.fc.Now().Add(b.latency), pm: pm}
		if b.hang {
			c.due, c.fail = w.fc.Now().Add(w.timeout), true
		}
		heap.Push(&w.pending, c)
		w.fc.Advance(tick)
	}
	return got
}

// settle reports every completion due by until, each at its own instant.
func (w *workload) settle(until time.Time) {
	for w.pending.Len() > 0 && !w.pending[0].due.After(until) {
		c := heap.Pop(&w.pending).(completion)
		if d := c.due.Sub(w.fc.Now()); d > 0 {
			w.fc.Advance(d)
		}
		if c.fail {
			c.pm.Done(retrypolicy.Outcome{Cause: retrypolicy.Timeout, Dispatch: retrypolicy.MaybeDispatched,
				Fault: retrypolicy.EndpointFault})
		} else {
			c.pm.Done(success())
		}
	}
}

// drain reports every pending completion.
func (w *workload) drain() {
	for w.pending.Len() > 0 {
		w.settle(w.pending[0].due)
	}
}

// share is got[name] over every call counted.
func share(got map[string]int, name string) float64 {
	total := 0
	for _, n := range got {
		total += n
	}
	return float64(got[name]) / float64(total)
}

// jittered is a latency around base, ±50 %, from i (deterministic).
func jittered(base time.Duration, i int) time.Duration {
	return base/2 + time.Duration(uint64(i)*2654435761%1000)*base/1000
}

func TestEqualPeersShareEvenly(t *testing.T) {
	w := newWorkload(t, "a", "b", "c")
	got := w.run(9000, time.Millisecond, func(_ string, i int) behaviour {
		return behaviour{latency: jittered(2*time.Millisecond, i)}
	})
	w.drain()
	for _, n := range []string{"a", "b", "c"} {
		if s := share(got, n); s < 0.3 || s > 0.367 { // a third, ±10 %
			t.Errorf("%s: share %.3f of %v, want a third ±10 %%", n, s, got)
		}
	}
}

// TestSlowPeerLosesItsShareAndRegainsIt: c answers after 300 ms from the
// second second on: within 200 calls its share falls below 5 %; fast
// again, it regains a third within seconds.
func TestSlowPeerLosesItsShareAndRegainsIt(t *testing.T) {
	w := newWorkload(t, "a", "b", "c")
	slow := false
	behave := func(name string, i int) behaviour {
		if name == "c" && slow {
			return behaviour{latency: 300 * time.Millisecond}
		}
		return behaviour{latency: jittered(2*time.Millisecond, i)}
	}
	w.run(1000, time.Millisecond, behave) // one second at 1000 calls/s
	slow = true
	first := w.run(200, time.Millisecond, behave)
	rest := w.run(8000, time.Millisecond, behave)
	t.Logf("slow: first 200 calls %v, next 8000 %v", first, rest)
	if s := share(rest, "c"); s >= 0.05 {
		t.Fatalf("slow c keeps %.3f of the calls after the first 200, want < 5 %%", s)
	}
	if s := share(rest, "c"); s == 0 {
		t.Fatal("slow c never probed: it could never be seen to recover")
	}
	slow = false
	var regained time.Duration
	for sec := 1; sec <= 10; sec++ {
		got := w.run(1000, time.Millisecond, behave)
		if s := share(got, "c"); s > 0.3 && s < 0.367 {
			regained = time.Duration(sec) * time.Second
			t.Logf("fast again: a third in second %d (%v)", sec, got)
			break
		}
	}
	if regained == 0 || regained > 8*time.Second {
		t.Fatalf("recovered c did not regain a third within 8 s (regained after %v)", regained)
	}
	w.drain()
}

// TestHangingPeerGetsAlmostNothing: c reads every request and never
// answers; its calls fail at the 500 ms attempt timeout. Between its
// ejections it gets a few probes, not a share.
func TestHangingPeerGetsAlmostNothing(t *testing.T) {
	w := newWorkload(t, "a", "b", "c")
	got := w.run(20000, time.Millisecond, func(name string, i int) behaviour {
		if name == "c" {
			return behaviour{hang: true}
		}
		return behaviour{latency: jittered(2*time.Millisecond, i)}
	})
	w.drain()
	t.Logf("20 s at 1000 calls/s: %v", got)
	if got["c"] > 20 {
		t.Fatalf("hanging c got %d calls of 20000, want at most 20", got["c"])
	}
}

// TestBalancingOnlyChoosesAmongTheAdmissible: a fast peer at its
// concurrency cap is not waited for while a slow one is free: limits
// decide who may be admitted, balancing only orders the rest.
func TestBalancingOnlyChoosesAmongTheAdmissible(t *testing.T) {
	p, fc := newPool(t, ep("fast", 0, endpoint.Limits{MaxConcurrentRequests: 1}), ep("slow", 0, endpoint.Limits{}))
	// Teach the pool their latencies: fast 1 ms, slow 200 ms.
	for _, tc := range []struct {
		name string
		d    time.Duration
	}{{"fast", time.Millisecond}, {"slow", 200 * time.Millisecond}} {
		req := read
		req.Avoid = []string{map[string]string{"fast": "slow", "slow": "fast"}[tc.name]}
		pm := now(t, p, req, tc.name)
		fc.Advance(tc.d)
		pm.Done(success())
	}
	held := now(t, p, read, "fast") // fast is the cheaper: taken first
	next := now(t, p, read, "slow") // fast is full: slow, at once
	next.Done(success())
	held.Done(success())
	for _, s := range p.Snapshot() {
		if s.Latency <= 0 || s.Admitted == 0 {
			t.Fatalf("snapshot %+v: latency and admissions not shown", s)
		}
	}
}

// TestSnapshotShowsShareAndCost: Share sums to 1 over a role, Cost orders
// the endpoints as the balancing does.
func TestSnapshotShowsShareAndCost(t *testing.T) {
	w := newWorkload(t, "a", "b")
	w.run(2000, time.Millisecond, func(name string, i int) behaviour {
		if name == "b" {
			return behaviour{latency: 50 * time.Millisecond}
		}
		return behaviour{latency: time.Millisecond}
	})
	snaps := map[string]endpoint.Snapshot{}
	total := 0.0
	for _, s := range w.p.Snapshot() {
		snaps[s.Name] = s
		total += s.Share
	}
	if total < 0.999 || total > 1.001 {
		t.Fatalf("shares sum to %v", total)
	}
	if a, b := snaps["a"], snaps["b"]; a.Cost >= b.Cost || a.Latency >= b.Latency || a.Share <= b.Share {
		t.Fatalf("a %+v\nb %+v", a, b)
	}
	w.drain()
}

// BenchmarkScanCost is Acquire+Release on one tier of n endpoints with
// latencies learnt: the balancing's cost as a tier grows.
func BenchmarkScanCost(b *testing.B) {
	for _, n := range []int{1, 2, 4, 8, 16, 32} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			specs := make([]endpoint.Spec, n)
			for i := range specs {
				specs[i] = ep(fmt.Sprintf("ep-%d", i), 0, benchLimits)
			}
			fc := clockwork.NewFakeClockAt(t0)
			p, err := admission.New(specs, pool.DefaultSettings(), admission.Options{Clock: fc, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			for range 4 * n { // a sample on every endpoint
				pm, _ := p.Acquire(b.Context(), read)
				fc.Advance(time.Millisecond)
				pm.Done(success())
			}
			b.ReportAllocs()
			for b.Loop() {
				pm, err := p.Acquire(b.Context(), read)
				if err != nil {
					b.Fatal(err)
				}
				pm.Release()
			}
		})
	}
}
