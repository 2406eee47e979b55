package redislimit

import "time"

// While Redis is counted down, the limiter asks it again on a grid: at
// every multiple of RetryInterval on the clock (since the Unix epoch), one
// PING, from a timer, whether or not any call is waiting. Replicas whose
// clocks agree probe at the same instants, so they learn that Redis
// answers again together, within their clocks' skew and a round trip:
// none keeps admitting from its fallback share beside another that is back
// on the shared bucket (plans/013, "Faults"). On the answer every bucket
// that admitted from its fallback carries that spending back to Redis
// (returnAll), and no lease is asked for until Options.OpTimeout / 5
// later (settle), so that the other replicas' charges are in the shared
// bucket before anyone leases from it.

// nextGrid returns the first multiple of p (since the Unix epoch) after
// t.
func nextGrid(t time.Time, p time.Duration) time.Time {
	ns, step := t.UnixNano(), int64(p)
	return time.Unix(0, (ns/step+1)*step)
}

// armProbeLocked arms the probe timer for the first grid instant after
// t, unless it is armed, the limiter is up or closed. l.mu must be held.
func (l *Limiter) armProbeLocked(t time.Time) {
	if l.closedFlag.Load() || l.probeTimer != nil || !l.down.Load() {
		return
	}
	at := nextGrid(t, l.retry)
	l.nextProbe.Store(at.UnixNano())
	l.probeGen++
	gen := l.probeGen
	l.probeTimer = l.clock.AfterFunc(max(0, at.Sub(l.clock.Now())), func() { l.probeFired(gen) })
}

// stopProbeLocked stops the probe timer, if armed. l.mu must be held.
func (l *Limiter) stopProbeLocked() {
	if l.probeTimer != nil {
		l.probeTimer.Stop()
		l.probeTimer = nil
	}
	l.probeGen++
}

// probeFired runs on the timer's goroutine: it starts the probe of the
// timer of generation gen, unless that timer was stopped since.
func (l *Limiter) probeFired(gen uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if gen != l.probeGen || l.probeTimer == nil {
		return
	}
	l.probeTimer = nil
	l.startLocked(l.probe)
}

// probe asks Redis whether it answers (PING, within go-redis's timeouts of
// OpTimeout). An answer brings the limiter back; a failure arms the next
// probe.
func (l *Limiter) probe() {
	err := l.client.Ping(l.ctx).Err()
	l.stats.ops.Add(1)
	now := l.clock.Now()
	if err == nil {
		l.ok(now)
	} else if kind := classify(err); kind != kindClosed {
		l.fail(now, kind)
	}
	l.answered(now)
}

// answered ends the goroutine of an answer (or a failure) applied at now,
// off every bucket's lock: when it brought the limiter back, every bucket
// that fell back returns; then the log lines decided meanwhile are
// written.
func (l *Limiter) answered(now time.Time) {
	if l.returnDue.Swap(false) {
		l.returnAll(now)
	}
	l.flush()
}

// fellBack notes that b admits from its fallback: it returns when Redis
// answers again. b.mu is held.
func (l *Limiter) fellBack(b *bucket) {
	if b.listed {
		return
	}
	b.listed = true
	l.fallenMu.Lock()
	defer l.fallenMu.Unlock()
	l.fallen = append(l.fallen, b)
}

// returnAll makes every bucket that fell back, at now, carry its fallback
// spending back to Redis (or, with none, go back to leases).
func (l *Limiter) returnAll(now time.Time) {
	l.fallenMu.Lock()
	fallen := l.fallen
	l.fallen = nil
	l.fallenMu.Unlock()
	for _, b := range fallen {
		b.mu.Lock()
		b.listed = false
		t := b.advance(now)
		switch {
		case !b.onFallback:
		case l.down.Load(): // down again meanwhile: the next answer
			l.fellBack(b)
		default:
			b.beginReturn(t)
		}
		b.mu.Unlock()
	}
}
