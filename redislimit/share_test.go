package redislimit

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/internal/redistest"
)

// fleetShares runs n limiters (seeds 1 to n) on one fake clock against a
// stopped Redis, each with one bucket of rate and burst, every replica
// asking at every instant any of them may admit (so each share admits
// all it can), from the fallback's start for span. It returns the instants
// of all admissions, sorted, the fallback's start, and the first rig (for
// its logs).
func fleetShares(t *testing.T, n int, rate float64, burst int, span time.Duration) ([]time.Time, time.Time, *rig) {
	t.Helper()
	srv := redistest.Start(t, redistest.Options{})
	srv.Kill() // down from the start: every limiter starts on its fallback
	clock := clockwork.NewFakeClockAt(epoch)
	rigs := make([]*rig, n)
	buckets := make([]*bucket, n)
	for i := range rigs {
		rigs[i] = newRig(t, srv, config.Limits{KeyPrefix: "t:", Replicas: n}, Options{Clock: clock, Seed: uint64(i + 1)})
		buckets[i] = rigs[i].bucket("a", rate, burst)
	}
	t0, end := clock.Now(), clock.Now().Add(span)
	var at []time.Time
	for {
		now := clock.Now()
		next := now.Add(100 * time.Millisecond) // small steps: the probes fire on the grid
		for i, r := range rigs {
			for r.take(buckets[i]) {
				at = append(at, now)
			}
			next = minTime(next, buckets[i].ReadyAt(now))
		}
		if !now.Before(end) {
			break
		}
		clock.Advance(minTime(next, end).Sub(now))
		for _, r := range rigs {
			r.settle()
		}
	}
	slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	return at, t0, rigs[0]
}

// mostWithin returns the most admissions of at (sorted) within any closed
// window of length w.
func mostWithin(at []time.Time, w time.Duration) int {
	most := 0
	for i := range at {
		j := i
		for j < len(at) && at[j].Sub(at[i]) <= w {
			j++
		}
		most = max(most, j-i)
	}
	return most
}

// TestFallbackSharesSpreadTheirTokens: docs/config.md's own example, ten
// replicas sharing a send role of 5/s with a burst of 5, all falling back
// together. Each share is 0.5/s with one token (⌊5/10⌋ = 0 holds none, and
// none would halt the role while Redis is down), and its first token comes
// at a phase its own rng draws in (0, 2 s], so the ten shares' tokens are
// spread across each 2 s instead of coming together: before, all ten at
// +2 s, +4 s, … (10 at one instant, 10 in any 1 s window, above the
// burst). Together they stay within rate × W + replicas in every window
// (one token each at worst) and admit rate × 10 s over 10 s. A burst of 10
// = replicas keeps its empty, in-phase shares of one token: ten at +2 s,
// within rate × LeaseTTL + burst.
func TestFallbackSharesSpreadTheirTokens(t *testing.T) {
	const replicas, rate, span = 10, 5.0, 10 * time.Second
	for _, tc := range []struct {
		burst            int
		instant, perSec  int // the most at one instant and in any 1 s window
		bound            func(w time.Duration) float64
		wantFirstAligned bool // every share's first token at +2 s
	}{
		{burst: 5, instant: 1, perSec: 7, bound: func(w time.Duration) float64 { return rate*w.Seconds() + replicas }},
		{burst: 10, instant: 10, perSec: 10, wantFirstAligned: true,
			bound: func(w time.Duration) float64 { return rate*(w+DefaultLeaseTTL).Seconds() + 10 }},
	} {
		at, t0, _ := fleetShares(t, replicas, rate, tc.burst, span)
		instant, perSec := mostWithin(at, 0), mostWithin(at, time.Second)
		t.Logf("burst %d: %d admitted over %v, at most %d at one instant, %d in a 1 s window; first at +%v, +%v",
			tc.burst, len(at), span, instant, perSec, at[0].Sub(t0), at[replicas-1].Sub(t0))
		if want := int(rate * span.Seconds()); len(at) != want {
			t.Errorf("burst %d: %d admitted over %v, want rate × %v = %d", tc.burst, len(at), span, span, want)
		}
		if instant != tc.instant || perSec != tc.perSec {
			t.Errorf("burst %d: at most %d at one instant and %d in a 1 s window, want %d and %d",
				tc.burst, instant, perSec, tc.instant, tc.perSec)
		}
		for _, w := range []time.Duration{0, 500 * time.Millisecond, time.Second, 2 * time.Second, 5 * time.Second} {
			if n := mostWithin(at, w); float64(n) > tc.bound(w) {
				t.Errorf("burst %d: %d admissions within %v, above the bound %g", tc.burst, n, w, tc.bound(w))
			}
		}
		interval := time.Duration(replicas / rate * float64(time.Second))
		aligned := at[0].Equal(t0.Add(interval)) && at[replicas-1].Equal(t0.Add(interval))
		if aligned != tc.wantFirstAligned || !at[0].After(t0) || at[replicas-1].After(t0.Add(interval)) {
			t.Errorf("burst %d: first tokens at +%v to +%v, want within (0, %v], aligned %v",
				tc.burst, at[0].Sub(t0), at[replicas-1].Sub(t0), interval, tc.wantFirstAligned)
		}
	}
}

// TestThinShareWarned: NewBucket warns once per endpoint and role whose
// burst is below Replicas, with what it means and what to set, and the
// line of an outage that begins later counts such roles; a thin share
// admits while Redis is down (it does not fall back closed); a burst of
// at least Replicas, or failing closed, is not warned of.
func TestThinShareWarned(t *testing.T) {
	r := newRig(t, nil, config.Limits{KeyPrefix: "t:", Replicas: 4}, Options{})
	b := r.bucket("a", 10, 3)
	r.bucket("a", 10, 3) // the same endpoint and role again: no second warning
	r.bucket("b", 10, 4)
	r.takeOrWait(b)
	r.srv.Kill()
	r.downAt(b)
	before := r.l.Stats().FallbackTaken
	if at := r.takeOrWait(b); r.l.Stats().FallbackTaken != before+1 {
		t.Errorf("at +%v: want one admission from the thin share, stats %+v", at.Sub(epoch), r.l.Stats())
	}
	logs := r.logs.String()
	if n := strings.Count(logs, "burst_capacity below replicas:"); n != 1 ||
		!strings.Contains(logs, "endpoint=a role=read burst_capacity=3 replicas=4") ||
		!strings.Contains(logs, "set burst_capacity to at least replicas") || !strings.Contains(logs, "or fail_closed") {
		t.Errorf("want one warning naming endpoint a, what to set and fail_closed; logs:\n%s", logs)
	}
	if !strings.Contains(logs, "1 roles with burst_capacity below replicas admit one token per replica") {
		t.Errorf("the outage's line does not count the thin role:\n%s", logs)
	}
	closed := newRig(t, nil, config.Limits{KeyPrefix: "t:", Replicas: 4, FailClosed: true}, Options{})
	closed.bucket("a", 10, 3)
	if logs := closed.logs.String(); strings.Contains(logs, "burst_capacity below replicas") {
		t.Errorf("failing closed, NewBucket warned of a thin share:\n%s", logs)
	}
}

// TestThinSharePhaseIsDrawnAtEachStart: every start of a thin share (each
// outage) draws its first token's phase again, uniform in (0, interval]:
// 1000 starts of a share of 2.5/s with one token (burst 3, 4 replicas)
// spread over the 400 ms; a share with whole tokens (burst 8) starts
// empty, its first token an interval on, every time.
func TestThinSharePhaseIsDrawnAtEachStart(t *testing.T) {
	r := newRig(t, nil, config.Limits{KeyPrefix: "t:", Replicas: 4}, Options{Seed: 7})
	const interval = 400 * time.Millisecond
	for _, tc := range []struct {
		burst    int
		lo, hi   time.Duration // the earliest and latest first token wanted
		distinct int           // at least this many distinct phases
	}{
		{burst: 3, lo: interval / 100, hi: interval - interval/100, distinct: 1000},
		{burst: 8, lo: interval, hi: interval, distinct: 1},
	} {
		b := r.bucket("a"+strconv.Itoa(tc.burst), 10, tc.burst)
		b.mu.Lock()
		g := b.newShare(epoch)
		first, last := interval, time.Duration(0)
		seen := map[time.Duration]bool{}
		for i := range 1000 {
			at := epoch.Add(time.Duration(i) * time.Minute)
			b.startShare(g, at)
			d := g.readyAt(at).Sub(at)
			if d <= 0 || d > interval || g.takeAt(at.Add(d-1)) || !g.takeAt(at.Add(d)) {
				t.Fatalf("burst %d: first token %v after the start, want one instant within (0, %v]", tc.burst, d, interval)
			}
			first, last, seen[d] = min(first, d), max(last, d), true
		}
		b.mu.Unlock()
		if first > tc.lo || last < tc.hi || len(seen) < tc.distinct {
			t.Errorf("burst %d: first tokens from %v to %v after the start, %d distinct; want from at most %v to at least %v, %d distinct",
				tc.burst, first, last, len(seen), tc.lo, tc.hi, tc.distinct)
		}
	}
}
