package redislimit_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/redistest"
	"github.com/solroute/solroute/redislimit"
)

// The proof of issue 16, on the real clock and a real redis-server: ten
// replicas (ten clients, each with its own go-redis client and
// connections) behind one fake endpoint whose quota is 100 requests per
// second with a burst of 100. The endpoint counts what it admits per
// one-second window. Run with -v to see the figures
// (docs/benchmarks-shared-limits.md):
//
//	go test -v -count=1 -run 'TestTenReplicas|TestRedisFaults' -bench Goodput -benchtime 40000x ./redislimit/

const (
	simReplicas = 10
	simQuota    = 100 // requests per second
	simBurst    = 100
)

// windows counts the requests an endpoint receives per one-second window
// from start, on the real clock.
type windows struct {
	clock clockwork.Clock
	start time.Time
	mu    sync.Mutex
	count []int
}

// script counts each request (not the accept-time asks) and answers it
// normally.
func (w *windows) script(c fixtures.Call) fixtures.Fault {
	if c.Accept {
		return fixtures.Fault{}
	}
	i := int(w.clock.Since(w.start) / time.Second)
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.count) <= i {
		w.count = append(w.count, 0)
	}
	w.count[i]++
	return fixtures.Fault{}
}

// full returns the counts of the windows that ended by end.
func (w *windows) full(end time.Time) []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := min(int(end.Sub(w.start)/time.Second), len(w.count))
	return append([]int(nil), w.count[:n]...)
}

// replicaDoc is the document of one replica: the endpoint with the quota,
// and [limits] as given (empty: local buckets). Coalescing is off: each
// caller's getSlot is one admission, which the simulation counts.
func replicaDoc(url, limits string) string {
	return "[transport]\ncoalesce = []\n" + limits + `
[[endpoints]]
name = "provider"
url = "` + url + `"
  [endpoints.roles.read]
  requests_per_second = ` + fmt.Sprint(simQuota) + `
  burst_capacity = ` + fmt.Sprint(simBurst) + `
  request_timeout = "5s"
`
}

// sharedLimits is the [limits] table of the replicas of one test.
func sharedLimits(srv *redistest.Server, prefix string) string {
	return fmt.Sprintf("[limits]\nbackend = \"redis\"\nurl = %q\nkey_prefix = %q\nreplicas = %d\n", srv.URL(), prefix, simReplicas)
}

// openReplicas builds n clients from one document each, each with the
// shared limiter its [limits] asks for (built from the document, as a
// program does: plans/013), and returns the limiters in the same order (a
// nil one for local buckets). Cleanup closes each client, then its
// limiter.
func openReplicas(t testing.TB, n int, doc string) ([]*solroute.Client, []*redislimit.Limiter) {
	t.Helper()
	var cs []*solroute.Client
	var ls []*redislimit.Limiter
	for range n {
		d, err := config.Parse([]byte(doc), config.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var h solroute.Hooks
		var lim *redislimit.Limiter
		if d.Limits.Backend == config.BackendRedis {
			if lim, err = redislimit.New(context.Background(), d.Limits, redislimit.Options{}); err != nil {
				t.Fatal(err)
			}
			h.Limits = lim
			t.Cleanup(func() { _ = lim.Close() })
		}
		c, err := solroute.FromDocument(d, h)
		if err != nil {
			t.Fatal(err)
		}
		cs, ls = append(cs, c), append(ls, lim)
		t.Cleanup(func() { _ = c.Close() })
	}
	return cs, ls
}

// outcomes counts the calls of a run.
type outcomes struct {
	ok, deadline, other atomic.Int64
}

// call makes one read through c and counts its outcome; a call cut short
// by the end of the run (ctx cancelled) is not counted.
func (o *outcomes) call(ctx context.Context, c *solroute.Client) bool {
	_, err := c.RPC().GetSlot(ctx, rpc.CommitmentConfirmed)
	switch {
	case err == nil:
		o.ok.Add(1)
		return true
	case ctx.Err() != nil:
	case errors.Is(err, admission.ErrDeadline), errors.Is(err, context.DeadlineExceeded):
		o.deadline.Add(1)
	default:
		o.other.Add(1)
	}
	return false
}

// saturate runs workers closed-loop callers on each client until ctx ends.
func saturate(ctx context.Context, wg *sync.WaitGroup, cs []*solroute.Client, workers int, o *outcomes, perClient []atomic.Int64) {
	for i, c := range cs {
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					if o.call(ctx, c) && perClient != nil {
						perClient[i].Add(1)
					}
				}
			}()
		}
	}
}

// pace runs one caller per client that calls at most every interval
// (closed loop: a call that waits for a token delays the next) until ctx
// ends.
func pace(ctx context.Context, wg *sync.WaitGroup, clock clockwork.Clock, cs []*solroute.Client, every time.Duration, o *outcomes) {
	for _, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := clock.NewTicker(every)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.Chan():
					o.call(ctx, c)
				}
			}
		}()
	}
}

// limiterStats sums the stats of the replicas' limiters.
func limiterStats(ls []*redislimit.Limiter) redislimit.Stats {
	var s redislimit.Stats
	for _, l := range ls {
		if l != nil {
			x := l.Stats()
			s.Ops += x.Ops
			s.Requests += x.Requests
			s.Granted += x.Granted
			s.Refused += x.Refused
			s.Errors += x.Errors
			s.Taken += x.Taken
			s.Expired += x.Expired
			s.Empty += x.Empty
			s.FallbackTaken += x.FallbackTaken
			s.FallbackRefused += x.FallbackRefused
			s.Charged += x.Charged
			s.Fallbacks += x.Fallbacks
			s.Recoveries += x.Recoveries
			s.Down = s.Down || x.Down
		}
	}
	return s
}

// simRun is the result of one saturation run.
type simRun struct {
	windows []int
	ok      int64
	stats   redislimit.Stats
}

// runSaturated saturates n replicas of doc for d and counts the endpoint's
// windows.
func runSaturated(t *testing.T, limits func(url string) string, d time.Duration) simRun {
	t.Helper()
	clock := clockwork.NewRealClock()
	w := &windows{clock: clock}
	ep := fixtures.NewServer(fixtures.Options{Name: "provider", Script: w.script})
	defer ep.Close()
	cs, ls := openReplicas(t, simReplicas, replicaDoc(ep.URL(), limits(ep.URL())))
	var o outcomes
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	w.start = clock.Now()
	saturate(ctx, &wg, cs, 4, &o, nil)
	<-clock.After(d)
	end := clock.Now()
	cancel()
	wg.Wait()
	if n := o.deadline.Load() + o.other.Load(); n > 0 {
		t.Errorf("%d calls failed (%d past their deadline)", n, o.deadline.Load())
	}
	return simRun{windows: w.full(end), ok: o.ok.Load(), stats: limiterStats(ls)}
}

// maxOf returns the largest of xs.
func maxOf(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// TestTenReplicasShareOneQuota: saturated, ten replicas with the shared
// limiter never send the endpoint more than quota + burst in a window;
// with local buckets the same run sends about ten times the quota.
func TestTenReplicasShareOneQuota(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	d := 10 * time.Second
	if testing.Short() {
		d = 3 * time.Second
	}
	shared := runSaturated(t, func(string) string { return sharedLimits(srv, "sim:") }, d)
	local := runSaturated(t, func(string) string { return "" }, d)

	if m := maxOf(shared.windows); m > simQuota+simBurst {
		t.Errorf("shared: a window of %d admissions, above quota + burst (%d): %v", m, simQuota+simBurst, shared.windows)
	}
	// After the first second (the burst), each window is about the quota.
	for i, n := range shared.windows[1:] {
		if n < simQuota*8/10 || n > simQuota*12/10 {
			t.Errorf("shared: window %d holds %d admissions, want about %d: %v", i+1, n, simQuota, shared.windows)
		}
	}
	if local.ok < 5*shared.ok {
		t.Errorf("local buckets admitted %d, shared %d: want about ten times", local.ok, shared.ok)
	}
	if opc := opsPerAdmission(shared.stats); opc >= 0.5 {
		t.Errorf("%.2f Redis round trips per admission, want well under one", opc)
	}
	if shared.stats.Down || shared.stats.Fallbacks != 0 {
		t.Errorf("shared stats %+v: Redis counted down in a healthy run", shared.stats)
	}
	t.Logf("shared limiter, %d replicas, quota %d/s + burst %d, %v saturated (4 callers each):", simReplicas, simQuota, simBurst, d)
	t.Logf("  admissions per 1 s window: %v (max %d, limit %d)", shared.windows, maxOf(shared.windows), simQuota+simBurst)
	t.Logf("  Redis round trips %d for %d admissions: %.3f per admission; tokens granted %d, expired unspent %d, requests refused %d",
		shared.stats.Ops, shared.stats.Taken, opsPerAdmission(shared.stats), shared.stats.Granted, shared.stats.Expired, shared.stats.Refused)
	t.Logf("local buckets, same run:")
	t.Logf("  admissions per 1 s window: %v (max %d: %.1f x the shared max)", local.windows, maxOf(local.windows),
		float64(maxOf(local.windows))/float64(max(1, maxOf(shared.windows))))
}

// TestRedisFaults: ten replicas paced below the quota while Redis stops
// answering (SIGSTOP) and comes back, then is killed and restarted empty.
// Calls go on under the fallback share with none past its deadline, every
// replica counts each fallback and each recovery, and at the end one
// replica alone gets far more than its fallback share: the shared limit is
// back. No window exceeds quota + burst + rate × LeaseTTL (the edge that
// leasing costs, met when one replica drains a full bucket while the
// others hold tokens leased just before).
func TestRedisFaults(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	phase := 2500 * time.Millisecond
	if testing.Short() {
		phase = time.Second
	}
	clock := clockwork.NewRealClock()
	w := &windows{clock: clock}
	ep := fixtures.NewServer(fixtures.Options{Name: "provider", Script: w.script})
	defer ep.Close()
	cs, ls := openReplicas(t, simReplicas, replicaDoc(ep.URL(), sharedLimits(srv, "faults:")))

	var o outcomes
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.start = clock.Now()
	// 8 calls per second per replica: 80 against a quota of 100, under
	// the fallback share (10 each) too.
	pace(ctx, &wg, clock, cs, 125*time.Millisecond, &o)
	type event struct {
		what  string
		at    time.Duration
		ok    int64
		stats redislimit.Stats
	}
	var events []event
	mark := func(what string) {
		events = append(events, event{what, clock.Since(w.start), o.ok.Load(), limiterStats(ls)})
	}
	// waitUp waits (polling, bounded) for every replica to be back on
	// Redis: each probes once per RetryInterval.
	waitUp := func() {
		deadline := clock.Now().Add(10 * time.Second)
		for limiterStats(ls).Down {
			if clock.Now().After(deadline) {
				t.Fatalf("a replica is still down 10 s after Redis came back: %+v", limiterStats(ls))
			}
			<-clock.After(20 * time.Millisecond)
		}
	}
	<-clock.After(phase)
	mark("paused (SIGSTOP)")
	srv.Pause()
	<-clock.After(phase)
	mark("resumed")
	srv.Resume()
	waitUp()
	mark("all back on Redis")
	<-clock.After(phase)
	mark("killed (SIGKILL)")
	srv.Kill()
	<-clock.After(phase)
	mark("restarted, empty")
	srv.Restart()
	waitUp()
	mark("all back on Redis")
	<-clock.After(phase)
	cancel()
	wg.Wait()
	mark("paced callers stop")

	// One replica alone, saturated: its fallback share would be 10/s.
	var solo outcomes
	perClient := make([]atomic.Int64, 1)
	ctx2, cancel2 := context.WithCancel(context.Background())
	soloStart := clock.Now()
	saturate(ctx2, &wg, cs[:1], 4, &solo, perClient)
	<-clock.After(2 * time.Second)
	cancel2()
	wg.Wait()
	soloRate := float64(perClient[0].Load()) / clock.Since(soloStart).Seconds()
	end := clock.Now()
	after := limiterStats(ls)

	if n := o.deadline.Load() + solo.deadline.Load(); n > 0 {
		t.Errorf("%d calls past their deadline", n)
	}
	if n := o.other.Load() + solo.other.Load(); n > 0 {
		t.Errorf("%d calls failed", n)
	}
	if after.Fallbacks < 2*simReplicas || after.Recoveries < 2*simReplicas || after.Down {
		t.Errorf("stats %+v: want every replica to fall back and come back twice", after)
	}
	if after.FallbackTaken == 0 {
		t.Errorf("stats %+v: no admission from the fallback share", after)
	}
	// Paced below the quota, the shared bucket refills to its burst
	// while replicas still hold tokens leased just before: a window may
	// then exceed quota + burst by what was held, at most rate × LeaseTTL
	// (plans/013-shared-limits.md, "Precision at the edges").
	slack := int(simQuota * redislimit.DefaultLeaseTTL.Seconds())
	if m := maxOf(w.full(end)); m > simQuota+simBurst+slack {
		t.Errorf("a window of %d admissions, above quota + burst + rate × LeaseTTL (%d): %v", m, simQuota+simBurst+slack, w.full(end))
	}
	if soloRate < 5*simQuota/simReplicas {
		t.Errorf("one replica alone got %.0f calls/s after the restart: want far above its fallback share (%d/s)", soloRate, simQuota/simReplicas)
	}
	t.Logf("faults, %d replicas paced at 8 calls/s each (quota %d/s, fallback share %d/s each), phases of %v:", simReplicas, simQuota, simQuota/simReplicas, phase)
	prev := event{}
	for _, e := range events {
		d := e.at - prev.at
		t.Logf("  %7v %-20s %4d calls ok in the %v before (%.0f/s); fallbacks %d, recoveries %d, fallback admissions %d",
			e.at.Round(time.Millisecond), e.what, e.ok-prev.ok, d.Round(time.Millisecond), float64(e.ok-prev.ok)/d.Seconds(),
			e.stats.Fallbacks, e.stats.Recoveries, e.stats.FallbackTaken)
		prev = e
	}
	t.Logf("  calls: %d ok, %d past their deadline, %d failed otherwise", o.ok.Load()+solo.ok.Load(), o.deadline.Load()+solo.deadline.Load(), o.other.Load()+solo.other.Load())
	t.Logf("  then one replica alone, saturated: %.0f calls/s (fallback share %d/s)", soloRate, simQuota/simReplicas)
	t.Logf("  admissions per 1 s window: %v (max %d; quota + burst %d, + rate × LeaseTTL %d)", w.full(end), maxOf(w.full(end)), simQuota+simBurst, simQuota+simBurst+slack)
	t.Logf("  Redis round trips %d for %d admissions (%.3f per admission)", after.Ops, after.Taken+after.FallbackTaken, opsPerAdmission(after))
}

// BenchmarkGoodput: a local-bucket client and a Redis-limiter client
// (each its own fake endpoint, 16 callers, a quota that does not bind:
// 100 000/s, burst 1 000) make b.N calls each, in alternating blocks of
// 1 000 so that both meet the same load on the machine. It reports each
// one's calls per second, their ratio (redis/local) and the Redis round
// trips per call.
func BenchmarkGoodput(b *testing.B) {
	srv := redistest.Start(b, redistest.Options{})
	type variant struct {
		c       *solroute.Client
		lim     *redislimit.Limiter
		elapsed time.Duration
	}
	open := func(limits string) *variant {
		ep := fixtures.NewServer(fixtures.Options{Name: "provider"})
		b.Cleanup(ep.Close)
		doc := strings.Replace(replicaDoc(ep.URL(), limits), "requests_per_second = 100\n", "requests_per_second = 100000\n", 1)
		doc = strings.Replace(doc, "burst_capacity = 100\n", "burst_capacity = 1000\n", 1)
		cs, ls := openReplicas(b, 1, doc)
		return &variant{c: cs[0], lim: ls[0]}
	}
	local := open("")
	shared := open(fmt.Sprintf("[limits]\nbackend = \"redis\"\nurl = %q\nkey_prefix = \"bench:%d:\"\n", srv.URL(), time.Now().UnixNano()))
	clock := clockwork.NewRealClock()
	var o outcomes
	block := func(v *variant, n int) {
		var next atomic.Int64
		var wg sync.WaitGroup
		start := clock.Now()
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for next.Add(1) <= int64(n) {
					o.call(context.Background(), v.c)
				}
			}()
		}
		wg.Wait()
		v.elapsed += clock.Since(start)
	}
	b.ResetTimer()
	for done := 0; done < b.N; done += 1000 {
		n := min(1000, b.N-done)
		block(local, n)
		block(shared, n)
	}
	b.StopTimer()
	if n := o.deadline.Load() + o.other.Load(); n > 0 {
		b.Fatalf("%d calls failed", n)
	}
	lr, sr := float64(b.N)/local.elapsed.Seconds(), float64(b.N)/shared.elapsed.Seconds()
	st := shared.lim.Stats()
	b.ReportMetric(lr, "local-calls/s")
	b.ReportMetric(sr, "redis-calls/s")
	b.ReportMetric(sr/lr, "redis/local")
	b.ReportMetric(opsPerAdmission(st), "redis-ops/call")
	b.ReportMetric(float64(st.Empty)/float64(max(st.Taken, 1)), "empty-lease/call")
}

// opsPerAdmission is Redis round trips over every admission (Taken +
// FallbackTaken), 0 when there was none.
func opsPerAdmission(s redislimit.Stats) float64 {
	if n := s.Taken + s.FallbackTaken; n > 0 {
		return float64(s.Ops) / float64(n)
	}
	return 0
}
