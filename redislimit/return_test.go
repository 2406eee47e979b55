package redislimit

import (
	"testing"
	"time"
)

// The shared limit's bound (plans/013, "Precision at the edges"): over any
// window of length W, admissions across all replicas stay within
// rate × W + burst + rate × LeaseTTL, also when Redis comes back after an
// outage or a restart. Issue 20 item 10 found it broken three ways, each
// a case here, on a fake clock (every figure exact, the same on every
// run).

// fleetReplicas is the replicas of the runs.
const fleetReplicas = 8

// bound returns rate × W + burst + rate × LeaseTTL, for W of one second.
func bound(rate float64, burst int) int {
	return int(rate*1 + float64(burst) + rate*defaultLeaseTTL.Seconds())
}

// replicasWith returns fleetReplicas demands, each made by f(i).
func replicasWith(f func(i int) []seg) [][]seg {
	d := make([][]seg, fleetReplicas)
	for i := range d {
		d[i] = f(i)
	}
	return d
}

// TestBoundHoldsWhenRedisReturns: eight replicas, 100/s with a burst of
// 100 (the bound is 250 admissions a second).
//
//   - late probes: saturated replicas lose Redis (killed) at 3 s at
//     different instants (seven at 3.4 s, one at 3.5 s, as a stall's
//     abandoned requests spread them), and it is back (restarted) at
//     5.45 s. Before the fix each replica came back with its own next
//     probe, a second after its own last failure: the one that came
//     first drained the full bucket while seven kept admitting at their
//     fallback share for 0.9 s more (279).
//   - saved shares: during the outage each replica calls twice a second,
//     below its fallback share (12.5/s), which fills to 12; all turn
//     saturated at 5.8 s, just before Redis answers again. Before the
//     fix those shares (96) were spent and never charged, beside a
//     shared bucket full again.
//   - restart forgets: 20/s with a burst of 100 (bound 130); every
//     replica takes 12 at 2 s, Redis is killed at 2.1 s and restarted
//     empty at 2.3 s, and at 2.9 s they take 12 each again. Before the
//     fix the restarted server had forgotten the first 96 and granted
//     another 96 within the second.
func TestBoundHoldsWhenRedisReturns(t *testing.T) {
	type scenario struct {
		name        string
		rate        float64
		burst       int
		end         time.Duration
		demand      [][]seg
		kill, start time.Duration
	}
	const s = time.Second
	for _, sc := range []scenario{{
		name: "late probes", rate: 100, burst: 100, end: 8 * s, kill: 3 * s, start: 5450 * time.Millisecond,
		demand: replicasWith(func(i int) []seg {
			back := 3400 * time.Millisecond
			if i == 0 {
				back = 3500 * time.Millisecond
			}
			return []seg{{to: 3 * s}, {from: back, to: 8 * s}}
		}),
	}, {
		name: "saved shares", rate: 100, burst: 100, end: 8 * s, kill: 3 * s, start: 5450 * time.Millisecond,
		demand: replicasWith(func(int) []seg {
			return []seg{{to: 3 * s}, {from: 3 * s, to: 5800 * time.Millisecond, every: 500 * time.Millisecond}, {from: 5800 * time.Millisecond, to: 8 * s}}
		}),
	}, {
		name: "restart forgets", rate: 20, burst: 100, end: 5 * s, kill: 2100 * time.Millisecond, start: 2300 * time.Millisecond,
		demand: replicasWith(func(int) []seg {
			return []seg{{from: 2 * s, to: 2100 * time.Millisecond, every: time.Hour, burst: 11}, {from: 2900 * time.Millisecond, to: 5 * s, every: time.Hour, burst: 11}}
		}),
	}} {
		t.Run(sc.name, func(t *testing.T) {
			f := newFleet(t, sc.rate, sc.burst, sc.demand)
			f.run(sc.end, map[time.Duration]func(){sc.kill: f.srv.Kill, sc.start: f.srv.Restart})
			limit := bound(sc.rate, sc.burst)
			most, at := maxWindow(f.at, time.Second)
			var late []time.Time
			for _, a := range f.at {
				if a.Sub(epoch) >= sc.kill-time.Second {
					late = append(late, a)
				}
			}
			around, _ := maxWindow(late, time.Second)
			t.Logf("%d admissions; per second: %v; worst window %d from +%v, %d around the fault (bound %d)",
				len(f.at), perWindow(f.at, time.Second, sc.end), most, at.Sub(epoch), around, limit)
			if most > limit {
				t.Errorf("a one-second window from +%v holds %d admissions, above the bound %d (rate × 1 s + burst + rate × LeaseTTL)",
					at.Sub(epoch), most, limit)
			}
		})
	}
}
