package redislimit

import (
	"slices"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/internal/redistest"
)

// A fleet is replicas (one Limiter each, as separate processes would
// have) against one real server, each with one bucket of the same
// (endpoint, role): what plans/013's bound is about. Each replica has its
// own fake clock; a driver steps them together, one replica after the
// other (so that their probe timers, due at the same instant, fire in one
// order on every run), and makes each replica's calls as the pool would
// (TakeAt; on a refusal, wait until ReadyAt), waiting in real time,
// bounded, only for Redis's answers, so that every instant an admission
// is made at is exact.

// seg is a stretch of one replica's demand: from (inclusive) to
// (exclusive), since epoch, a burst of calls at from and then one call
// every `every`; every 0 is saturated (callers always waiting).
type seg struct {
	from, to time.Duration
	every    time.Duration
	burst    int
}

// callsBy returns how many calls the paced segments of segs have made
// by t.
func callsBy(segs []seg, t time.Duration) int {
	n := 0
	for _, s := range segs {
		if t >= s.from && s.every > 0 {
			n += s.burst + int((min(t, s.to-1)-s.from)/s.every) + 1
		}
	}
	return n
}

// saturatedAt reports whether a saturated segment of segs holds t.
func saturatedAt(segs []seg, t time.Duration) bool {
	for _, s := range segs {
		if s.every == 0 && t >= s.from && t < s.to {
			return true
		}
	}
	return false
}

// fleet is the replicas of one scenario.
type fleet struct {
	t   *testing.T
	srv *redistest.Server
	// clock is the first replica's; all show the same instant between
	// steps.
	clock   *clockwork.FakeClock
	rigs    []*rig
	buckets []*bucket
	demand  [][]seg
	// admitted counts each replica's admissions, and sat those made
	// while saturated (calls that never wait for long); at every
	// admission's instant, in order.
	admitted, sat []int
	at            []time.Time
}

// newFleet starts a server and one Limiter per demand (Replicas: that
// many), each with one bucket "provider" of rate and burst.
func newFleet(t *testing.T, rate float64, burst int, demand [][]seg) *fleet {
	t.Helper()
	f := &fleet{t: t, srv: redistest.Start(t, redistest.Options{}), demand: demand}
	s := config.Limits{KeyPrefix: "fleet:", Replicas: len(demand)}
	for i := range demand {
		r := newRig(t, f.srv, s, Options{Clock: clockwork.NewFakeClockAt(epoch), Seed: uint64(i + 1)})
		f.rigs = append(f.rigs, r)
		f.buckets = append(f.buckets, r.bucket("provider", rate, burst))
	}
	f.clock = f.rigs[0].clock
	f.admitted = make([]int, len(demand))
	f.sat = make([]int, len(demand))
	return f
}

// waiting reports whether replica i has a call not yet admitted at now.
func (f *fleet) waiting(i int, now time.Time) bool {
	t := now.Sub(epoch)
	return saturatedAt(f.demand[i], t) || f.admitted[i] < f.sat[i]+callsBy(f.demand[i], t)
}

// settle waits until every request started has been answered; it reports
// whether there was any to wait for.
func (f *fleet) settle() bool {
	f.t.Helper()
	waited := false
	for _, r := range f.rigs {
		waited = r.settle() || waited
	}
	return waited
}

// run drives the fleet until the clock reaches end, calling each of
// events when the clock reaches its instant (since epoch) and before any
// call made there.
func (f *fleet) run(end time.Duration, events map[time.Duration]func()) {
	f.t.Helper()
	const maxStep = 10 * time.Millisecond
	for steps := 0; f.clock.Since(epoch) < end; steps++ {
		if steps > 1_000_000 {
			f.t.Fatal("the fleet made no progress")
		}
		now := f.clock.Now()
		if ev, ok := events[now.Sub(epoch)]; ok {
			delete(events, now.Sub(epoch))
			ev()
		}
		f.admitAll(now)
		next := now.Add(maxStep)
		for at := range events {
			if e := epoch.Add(at); e.After(now) && e.Before(next) {
				next = e
			}
		}
		landed := false
		for i, b := range f.buckets {
			if f.waiting(i, now) {
				if ready := b.ReadyAt(now); ready.Before(next) {
					next = ready
				}
				landed = f.settle() || landed
			}
		}
		if landed {
			continue // an answer landed: try again at the same instant
		}
		if !next.After(now) {
			next = now.Add(time.Nanosecond)
		}
		for _, r := range f.rigs {
			r.advance(next.Sub(now))
		}
	}
}

// admitAll makes every waiting call at now that gets a token, replica by
// replica, waiting for the answers of the requests each one started
// before the next one calls (so that Redis sees them in one order on
// every run), until none is admitted.
func (f *fleet) admitAll(now time.Time) {
	for progressed := true; progressed; {
		progressed = false
		for i, b := range f.buckets {
			for f.waiting(i, now) && b.TakeAt(now) {
				f.admitted[i]++
				if saturatedAt(f.demand[i], now.Sub(epoch)) {
					f.sat[i]++
				}
				f.at = append(f.at, now)
				progressed = true
			}
			progressed = f.settle() || progressed
		}
	}
}

// maxWindow returns the most admissions in a window of length w that
// starts at an admission, and that window's start.
func maxWindow(at []time.Time, w time.Duration) (int, time.Time) {
	at = slices.Clone(at)
	slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	best, start := 0, time.Time{}
	j := 0
	for i := range at {
		for j < len(at) && at[j].Before(at[i].Add(w)) {
			j++
		}
		if j-i > best {
			best, start = j-i, at[i]
		}
	}
	return best, start
}

// perWindow counts admissions per window of length w from epoch.
func perWindow(at []time.Time, w time.Duration, end time.Duration) []int {
	out := make([]int, int(end/w))
	for _, a := range at {
		if i := int(a.Sub(epoch) / w); i < len(out) {
			out[i]++
		}
	}
	return out
}
