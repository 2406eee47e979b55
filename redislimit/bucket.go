package redislimit

import (
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/solroute/solroute/endpoint"
)

// Tuning of the lease, beside Options.
const (
	// demandTau is the time constant of a bucket's demand and use
	// estimates (TakeAt calls and admissions per second, decayed on read).
	demandTau = time.Second
	// minPoll is the shortest wait ReadyAt gives while a request is in
	// flight, and the floor of the round-trip estimate: a fake clock
	// measures round trips as 0.
	minPoll = 50 * time.Microsecond
	// firstRTT is the round-trip estimate before one was measured.
	firstRTT = 500 * time.Microsecond
)

// bucket is the shared bucket of one (endpoint, role): tokens leased from
// Redis, spent locally, asked for again off the caller's path.
//
// TakeAt and ReadyAt never wait: when the lease runs low they start one
// request (a goroutine Close waits for), at most one in flight per bucket,
// and its answer lands in the lease. A bucket falls back to its local
// share (rate and burst / Replicas, empty when the fallback starts) while
// the limiter counts Redis as down; when Redis answers again it admits
// nothing more from that share, carries what it admitted from it back to
// the shared bucket, and goes back to leases (fallback.go). Every field is
// guarded by mu.
type bucket struct {
	l   *Limiter
	key string
	// interval is microseconds per token and tolerance burst × interval,
	// as the script takes them; rate and burst are the role's.
	interval, tolerance float64
	rate                float64
	burst               int
	// leaseCap is the most tokens held or asked for at once: MaxLease, and
	// at most burst / Replicas, at least 1.
	leaseCap int

	mu sync.Mutex
	// latest is the latest instant seen: instants never go backwards here.
	latest time.Time
	// tokens are leased and unspent; they expire at leaseEnd.
	tokens   int
	leaseEnd time.Time
	// shared is the shared bucket's TAT by the last answer (zero: no
	// answer yet): k tokens are there at shared + k*T - b*T, unless other
	// replicas took them. floor is the same TAT in microseconds, rounded
	// down, which every request passes (a restarted server gets it back).
	shared time.Time
	floor  int64
	// notBefore: no request before it (see apply).
	notBefore time.Time
	// contention estimates how many replicas compete for the shared
	// bucket, from 1 to Replicas: doubled by a refusal, halved by a grant
	// of all that was asked (see spread).
	contention float64
	// cur is the request in flight, when inflight.
	inflight bool
	cur      request
	gen      uint64
	// rtt is the round-trip estimate (EWMA, on the clock).
	rtt time.Duration
	// demand is the decayed count of TakeAt calls and use that of
	// admissions, at demandAt: demand sizes the lease (callers waiting
	// call again, so it runs ahead of use when the quota binds), use
	// decides whether to ask before the lease is empty.
	demand, use float64
	demandAt    time.Time
	// onFallback: the bucket fell back and has not returned; returning:
	// Redis answers again and the bucket is carrying spends (its fallback
	// admissions) back to it, admitting nothing meanwhile; listed: it is
	// in the limiter's fallen list (fallback.go).
	onFallback, returning, listed bool
	fallback                      *localGCRA
	spends                        spendLog
	rng                           *rand.Rand
}

// request is one lease request, or (want 0) one that carries a charge
// back.
type request struct {
	gen         uint64
	at          time.Time
	want, least int
	floor       int64
	charge      int
}

// newBucket builds the bucket of (name, role) with normalised limits of a
// non-zero rate.
func newBucket(l *Limiter, name string, role endpoint.Role, limits endpoint.Limits) *bucket {
	iv := 1e6 / limits.RequestsPerSecond
	b := &bucket{
		l: l, key: l.prefix + name + ":" + role.String(),
		interval: iv, tolerance: iv * float64(limits.BurstCapacity),
		rate: limits.RequestsPerSecond, burst: limits.BurstCapacity,
		leaseCap: max(1, min(l.maxLease, limits.BurstCapacity/l.replicas)),
		rtt:      firstRTT, contention: 1,
		spends: newSpendLog(iv * float64(limits.BurstCapacity)),
		rng:    rand.New(rand.NewPCG(l.seed, l.buckets.Add(1))),
	}
	return b
}

// TakeAt spends a leased token, or on fallback a token of the local
// share, and starts a request when the lease runs low. It never waits.
func (b *bucket) TakeAt(t time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	t = b.advance(t)
	b.noteDemand(t)
	if b.tokens > 0 {
		b.tokens--
		b.use++
		b.l.stats.taken.Add(1)
		b.refill(t, false)
		return true
	}
	switch b.modeAt(t) {
	case modeFallback:
		if !b.l.failClosed && b.fallback.takeAt(t) {
			b.use++
			b.spends.add(t)
			b.l.stats.fallbackTaken.Add(1)
			return true
		}
		b.l.stats.fallbackDeny.Add(1)
		return false
	case modeLease:
		b.refill(t, true)
	}
	b.l.stats.empty.Add(1)
	return false
}

// ReadyAt returns the earliest instant at which TakeAt may succeed: t
// with tokens leased; on fallback, the local share's instant (fail-closed:
// when Redis may answer again, closedReady); with a request in flight, t plus the
// round-trip estimate (the answer may land then), never after the request
// would be abandoned; after a refusal, the instant Redis said plus the
// estimate; after Redis answered again, not before the settle ends. It may
// start a request, as TakeAt does, so that a caller that only asks is not
// left waiting for a request nobody made.
func (b *bucket) ReadyAt(t time.Time) time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	t = b.advance(t)
	if b.tokens > 0 {
		return t
	}
	switch b.modeAt(t) {
	case modeFallback:
		return b.fallbackReady(t)
	case modeReturning:
		if b.inflight {
			return b.inflightReady(t)
		}
		return t.Add(b.rtt)
	}
	b.refill(t, true)
	if b.inflight {
		return b.inflightReady(t)
	}
	ready := t
	if from := time.Unix(0, b.l.leaseFrom.Load()); from.After(ready) {
		ready = from
	}
	if b.notBefore.After(ready) {
		ready = b.notBefore
	}
	return ready.Add(b.rtt)
}

// inflightReady is ReadyAt while a request is in flight: its answer may
// land one round trip on, and it is abandoned at sent + OpTimeout.
func (b *bucket) inflightReady(t time.Time) time.Time {
	ready := t.Add(b.rtt)
	if end := b.cur.at.Add(b.l.opTimeout); end.Before(ready) {
		ready = end
	}
	if !ready.After(t) {
		ready = t.Add(1)
	}
	return ready
}

// TokensAt returns the leased tokens usable at t, or the fallback's while
// on it. It changes nothing.
func (b *bucket) TokensAt(t time.Time) float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tokens > 0 && t.Before(b.leaseEnd) {
		return float64(b.tokens)
	}
	if b.onFallback && !b.returning && b.fallback != nil {
		return b.fallback.tokensAt(t)
	}
	return 0
}

// advance clamps t to the latest instant seen, drops expired tokens and
// abandons a request in flight for too long.
func (b *bucket) advance(t time.Time) time.Time {
	if t.Before(b.latest) {
		t = b.latest
	}
	b.latest = t
	if b.tokens > 0 && !t.Before(b.leaseEnd) {
		b.l.stats.expired.Add(uint64(b.tokens))
		b.tokens = 0
	}
	if b.inflight && t.Sub(b.cur.at) >= b.l.opTimeout {
		b.inflight = false
		b.l.fail(t, kindTimeout)
		b.keepReturning(t)
	}
	return t
}

// noteDemand counts one TakeAt at t in the demand estimate, decaying it
// and the use estimate to t.
func (b *bucket) noteDemand(t time.Time) {
	if dt := t.Sub(b.demandAt); dt > 0 {
		decay := math.Exp(-float64(dt) / float64(demandTau))
		b.demand *= decay
		b.use *= decay
	}
	b.demand++
	b.demandAt = t
}

// prefetching reports whether this replica uses the bucket often enough
// (at least one admission per half a lease's lifetime) that a token asked
// for ahead of need is likely spent before it expires. Below that, a
// token is asked for only when a caller finds the lease empty: the caller
// waits one round trip, and no token is wasted.
func (b *bucket) prefetching() bool {
	return b.use/demandTau.Seconds()*b.l.leaseTTL.Seconds()/2 >= 1
}

// want is how many tokens to hold: the demand of about half a lease's
// lifetime (so that a lease is spent before it expires), within 1 and
// leaseCap.
func (b *bucket) want() int {
	perSecond := b.demand / demandTau.Seconds()
	w := math.Ceil(perSecond * b.l.leaseTTL.Seconds() / 2)
	return int(max(1, min(w, float64(b.leaseCap))))
}

// refill starts a request at t when the lease is low (at most half of
// what the demand wants), a caller needs a token now or the bucket is
// prefetching, none is in flight, no refusal holds it back, Redis is
// counted up, the bucket has returned from its fallback and the settle
// after Redis's return is over.
func (b *bucket) refill(t time.Time, need bool) {
	if b.inflight || t.Before(b.notBefore) || b.l.closedFlag.Load() || b.l.down.Load() || b.onFallback ||
		t.UnixNano() < b.l.leaseFrom.Load() || !need && !b.prefetching() {
		return
	}
	want := b.want()
	if b.tokens > want/2 {
		return
	}
	ask := want - b.tokens
	// At least half, or what the last answer says is there (the request
	// is then answered with tokens unless another replica took them).
	least := (ask + 1) / 2
	if !b.shared.IsZero() {
		there := math.Floor((float64(t.Sub(b.shared))/float64(time.Microsecond)+b.tolerance)/b.interval + 1e-9) // as the script
		least = int(max(1, min(float64(least), there)))
	}
	b.send(request{at: t, want: ask, least: least})
}

// send starts r (its generation and floor filled in) and reports whether
// it started (not once Close has begun).
func (b *bucket) send(r request) bool {
	b.gen++
	r.gen, r.floor = b.gen, b.floor
	if !b.l.start(func() { b.do(r) }) {
		return false
	}
	b.inflight, b.cur = true, r
	b.l.stats.requests.Add(1)
	return true
}

// do runs request r and applies its answer.
func (b *bucket) do(r request) {
	g, err := lease(b.l.ctx, b.l.client, b.key, ask{now: r.at, interval: b.interval, tolerance: b.tolerance,
		want: r.want, least: r.least, floor: r.floor, charge: r.charge})
	b.l.stats.ops.Add(uint64(g.ops))
	now := b.l.clock.Now()
	b.apply(r, g, err, now)
	b.l.answered(now)
}

// apply takes the answer g (or err) to request r, at now.
func (b *bucket) apply(r request, g grant, err error, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	current := b.inflight && b.cur.gen == r.gen
	if current {
		b.inflight = false
		if err == nil { // a failure's time says nothing of a round trip
			rtt := max(now.Sub(r.at), minPoll)
			b.rtt = min((4*b.rtt+rtt)/5, b.l.opTimeout)
		}
	}
	if now.Before(b.latest) {
		now = b.latest
	}
	switch {
	case !current:
		b.applyLate(r, g, err, now)
	case err != nil:
		if kind := classify(err); kind != kindClosed {
			b.l.fail(now, kind)
		}
	default:
		b.l.ok(now)
		b.shared, b.floor = r.at.Add(g.ahead), g.floor
		if r.want == 0 {
			b.returned(r)
		} else {
			b.applyGrant(r, g, now)
		}
	}
	b.keepReturning(now)
}

// applyLate takes the answer to a request given up on: its failure was
// counted when it was abandoned, and its view of the bucket is older than
// what came since. An answer says Redis answers again, and the tokens it
// was granted are kept (they were taken from the shared bucket), until
// their lease ends. (A charge that lands late stays counted in spends and
// is charged again on the next return: the safe side.)
func (b *bucket) applyLate(r request, g grant, err error, now time.Time) {
	if err != nil {
		return
	}
	b.l.ok(now)
	if g.tokens > 0 {
		b.l.stats.granted.Add(uint64(g.tokens))
		b.addLease(r, g.tokens, now)
	}
}

// applyGrant takes the answer g to the lease request r, current, at now.
func (b *bucket) applyGrant(r request, g grant, now time.Time) {
	if g.tokens == 0 {
		// Another replica took the tokens this one expected.
		b.l.stats.refused.Add(1)
		b.contention = min(2*b.contention, float64(b.l.replicas))
		b.notBefore = b.spread(r.least)
		return
	}
	b.l.stats.granted.Add(uint64(g.tokens))
	if g.tokens == r.want {
		b.contention = max(1, b.contention/2)
	}
	b.addLease(r, g.tokens, now)
	// Wait for half a lease to be back in the shared bucket before the
	// next request: under a quota that binds, requests then take several
	// tokens each instead of one as each comes. (If Redis forgot the
	// bucket, the wait is longer than it had to be, never shorter.)
	b.notBefore = b.spread((b.want() + 1) / 2)
}

// addLease adds n tokens granted to r to the lease, which lasts LeaseTTL
// from r's instant; at now they may have expired already.
func (b *bucket) addLease(r request, n int, now time.Time) {
	b.tokens += n
	if end := r.at.Add(b.l.leaseTTL); end.After(b.leaseEnd) {
		b.leaseEnd = end
	}
	if !now.Before(b.leaseEnd) {
		b.l.stats.expired.Add(uint64(b.tokens))
		b.tokens = 0
	}
}

// spread returns when to ask next for at least k tokens: when the last
// answer says k are back, plus, while other replicas compete, a jitter
// whose mean is the time k tokens take for each of the other
// contention − 1. With every replica waiting for the same bucket, their
// requests then come about once per k tokens, and each finds about k,
// instead of all meeting when the first k are back.
func (b *bucket) spread(k int) time.Time {
	at := b.tokensAt(k)
	if b.contention <= 1 {
		return at
	}
	window := 2 * (b.contention - 1) * float64(k) * b.interval // µs
	return at.Add(time.Duration(b.rng.Float64() * window * float64(time.Microsecond)))
}

// tokensAt returns the instant at which k tokens are in the shared bucket
// by the last answer, if nobody else takes any.
func (b *bucket) tokensAt(k int) time.Time {
	us := float64(k)*b.interval - b.tolerance
	return b.shared.Add(time.Duration(math.Ceil(us * float64(time.Microsecond))))
}

// minTime returns the earlier of a and b.
func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
