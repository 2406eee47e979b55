package redislimit

import (
	"testing"
	"time"

	"github.com/solroute/solroute/config"
)

// rttOf returns b's round-trip estimate.
func rttOf(b *bucket) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rtt
}

// wakes counts the ReadyAt instants a waiter on b wakes at, from `from`
// until before end, TakeAt refusing at each; it fails the test when an
// instant is not after the last or TakeAt admits.
func wakes(t *testing.T, b *bucket, from, end time.Time) []time.Time {
	t.Helper()
	var at []time.Time
	for now := from; now.Before(end) && len(at) <= 100; {
		if b.TakeAt(now) {
			t.Fatalf("admitted at %v failing closed", now.Sub(from))
		}
		next := b.ReadyAt(now)
		if !next.After(now) {
			t.Fatalf("ReadyAt(%v) = %v: not after now", now.Sub(from), next.Sub(from))
		}
		if next.Before(end) {
			at = append(at, next)
		}
		now = next
	}
	return at
}

// TestFailClosedAfterCloseWaitsWithoutPolling: failing closed, after
// Close no probe will ever come and TakeAt refuses for good, so ReadyAt
// is the longest Duration away (as the pool's own buckets say "never"): a
// waiter waits to its deadline and wakes not once before it. Before, it
// was one round-trip estimate (410 µs) on every time, so a waiter with a
// 5 s deadline woke over 12 000 times.
func TestFailClosedAfterCloseWaitsWithoutPolling(t *testing.T) {
	r := newRig(t, nil, config.Limits{KeyPrefix: "t:", FailClosed: true}, Options{})
	b := r.bucket("a", 10, 10)
	r.takeOrWait(b)
	if err := r.l.Close(); err != nil {
		t.Fatal(err)
	}
	now := r.clock.Now()
	for b.TakeAt(now) { // the lease leased before Close
	}
	if got := b.ReadyAt(now); !got.Equal(now.Add(never)) {
		t.Errorf("ReadyAt after Close = now + %v, want now + %v", got.Sub(now), never)
	}
	if w := wakes(t, b, now, now.Add(5*time.Second)); len(w) != 0 {
		t.Errorf("a waiter with a 5 s deadline woke %d times on a closed limiter, want none", len(w))
	}
}

// TestFailClosedWaitsOutAHangingProbe: failing closed while the grid's
// PING hangs (the server stopped by SIGSTOP: the connection open, no
// answer; go-redis's read timeout is OpTimeout of real time, not on the
// clock), a waiter wakes once when the answer may come (the probe's
// instant + the round-trip estimate), once when the probe is given up on
// (its instant + OpTimeout), and then at the next grid instant + the
// estimate, when the probe its failure arms may answer. Before, ReadyAt
// was one estimate (410 µs) on every time: over 100 wakes in 41 ms, and
// for as long as the PING hung.
func TestFailClosedWaitsOutAHangingProbe(t *testing.T) {
	// Past many grid instants, and a minute of real time for go-redis's
	// read timeout: the PING hangs for the whole test.
	const opTimeout = time.Minute
	r := newRig(t, nil, config.Limits{KeyPrefix: "t:", FailClosed: true}, Options{OpTimeout: opTimeout})
	b := r.bucket("a", 10, 10)
	r.takeOrWait(b)
	r.srv.Pause()
	resumed := false
	defer func() {
		if !resumed {
			r.srv.Resume()
		}
	}()
	for b.TakeAt(r.clock.Now()) {
	} // a request in flight, unanswered
	r.clock.Advance(opTimeout)
	b.ReadyAt(r.clock.Now()) // abandons it: down
	if !r.l.Stats().Down {
		t.Fatal("not down after the request was abandoned")
	}
	now := r.clock.Now()
	probe := nextGrid(now, r.l.retry)
	rtt := rttOf(b)
	if got := b.ReadyAt(now); !got.Equal(probe.Add(rtt)) {
		t.Errorf("ReadyAt before the probe = probe + %v, want probe + the estimate %v", got.Sub(probe), rtt)
	}
	// The probe is due: its timer fires, and its PING hangs.
	r.clock.Advance(probe.Sub(now))
	end := probe.Add(opTimeout).Add(r.l.retry + rtt + 1)
	got := wakes(t, b, probe, end)
	want := []time.Time{probe.Add(rtt), probe.Add(opTimeout), nextGrid(probe.Add(opTimeout), r.l.retry).Add(rtt)}
	if len(got) != len(want) {
		t.Fatalf("a waiter woke %d times from the probe to %v after it (first: %v), want %d: %v",
			len(got), end.Sub(probe), offsets(got[:min(len(got), 5)], probe), len(want), offsets(want, probe))
	}
	for i := range want {
		if !got[i].Equal(want[i]) {
			t.Errorf("wake %d at probe + %v, want probe + %v", i, got[i].Sub(probe), want[i].Sub(probe))
		}
	}
	r.srv.Resume()
	resumed = true
	r.settle()
}

// offsets returns each instant of at as its offset from base.
func offsets(at []time.Time, base time.Time) []time.Duration {
	d := make([]time.Duration, len(at))
	for i, t := range at {
		d[i] = t.Sub(base)
	}
	return d
}
