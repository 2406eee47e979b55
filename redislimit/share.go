package redislimit

import (
	"context"
	"log/slog"
	"math"
	"time"

	"github.com/solroute/solroute/endpoint"
)

// A bucket's fallback share (fallback.go): rate / Replicas with a burst of
// ⌊burst / Replicas⌋, empty when the fallback starts, so that the shares
// together add no burst and stay within rate × W + burst in any window W.
//
// A role whose burst is below Replicas has no whole token in that share.
// Its share holds one all the same: a share of none would halt every call
// of the role while Redis is down, and the fallback is there for
// availability (a call the provider refuses above its burst is a 429, a
// call not dispatched, safe to send again). But N replicas that fall back
// at one instant, each share empty then, would each hold their token one
// interval (Replicas / rate) later: N at one instant, again every interval,
// in phase. So such a thin share starts with its first token at a phase
// drawn from the bucket's own rng, uniform in (0, interval], and every
// later token follows one interval after the one before: the replicas'
// tokens are spread across each interval instead of aligned. Together the
// thin shares admit at most rate × W + Replicas in any window W (one token
// each at worst, as when the phases happen to meet), and about one token
// per replica per interval, each at its own instant.

// thinShare reports whether the bucket's fallback share holds no whole
// token of the burst (burst below Replicas), so that it holds one at a
// drawn phase.
func (b *bucket) thinShare() bool { return b.burst < b.l.replicas }

// newShare returns the bucket's fallback share, started at t.
func (b *bucket) newShare(t time.Time) *localGCRA {
	g := newLocalGCRA(b.rate/float64(b.l.replicas), max(1, b.burst/b.l.replicas), t)
	b.startShare(g, t)
	return g
}

// startShare empties the share g at t: its first token comes one interval
// later, or for a thin share at a phase drawn in (0, interval].
func (b *bucket) startShare(g *localGCRA, t time.Time) {
	if !b.thinShare() {
		g.empty(t)
		return
	}
	phase := time.Duration(math.Ceil((1 - b.rng.Float64()) * float64(g.interval)))
	g.emptyUntil(t, min(max(phase, 1), g.interval))
}

// warnThinShare logs, once per endpoint and role, that the role of the
// endpoint named name has a burst below Replicas, what that means while
// Redis is down and what to set; and counts such roles for the outage's
// line. Failing closed, the share admits nothing and there is nothing to
// warn of.
func (l *Limiter) warnThinShare(name string, role endpoint.Role, limits endpoint.Limits) {
	if l.failClosed || limits.BurstCapacity >= l.replicas {
		return
	}
	if _, seen := l.thinWarned.LoadOrStore(name+":"+role.String(), struct{}{}); seen {
		return
	}
	l.thinShares.Add(1)
	if l.log == nil {
		return
	}
	l.log.LogAttrs(context.Background(), slog.LevelWarn, "redislimit: burst_capacity below replicas: "+
		"while redis is down each replica admits one token of this role per replicas / requests_per_second seconds, "+
		"at phases spread over that interval, so that at worst all replicas admit at one instant, above burst_capacity "+
		"(the provider may refuse the excess); set burst_capacity to at least replicas (if the provider allows that burst), "+
		"or fail_closed to admit nothing while redis is down",
		slog.String("endpoint", name), slog.String("role", role.String()),
		slog.Int("burst_capacity", limits.BurstCapacity), slog.Int("replicas", l.replicas))
}
