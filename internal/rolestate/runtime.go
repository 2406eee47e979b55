package rolestate

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/slots"
)

// Options tune a Runtime. The zero value is valid.
type Options struct {
	// Bucket replaces the token bucket, for example with one shared between
	// processes. Nil means NewRateBucket(limits).
	Bucket Bucket
	// OnStateChange, when set, is called after every health transition
	// that changes the state, from the goroutine that caused it. It must
	// not block.
	OnStateChange func(from, to endpoint.Health)
	// OnSlotFreed, when set, is called each time Release gives a
	// concurrency slot back, and when AdmitAt gives back, for a missing
	// token, a slot it took while that made every slot held: each time a
	// request blocked by concurrency may now be admitted, once per slot.
	// It must not block. It is never called when MaxConcurrentRequests is
	// 0.
	OnSlotFreed func()
	// Ejection configures passive ejection after consecutive failures.
	// The zero value never ejects (see endpoint.DefaultEjection).
	Ejection endpoint.Ejection
	// DoubtWindow is how long the role stays in doubt after DoubtedAt.
	// 0 or negative means it is never in doubt.
	DoubtWindow time.Duration
	// Shared is the state the endpoint's roles share (slots, cluster
	// verification); the pool gives every role of one endpoint the same.
	// Nil means a Shared of the role's own.
	Shared *Shared
}

// Admission is what AdmitAt grants: a held concurrency slot and a spent
// token. Pass it back with the outcome and to Release.
type Admission struct {
	// Generation is the health generation the request was admitted under.
	Generation uint64
	// n is the instant the request was admitted at, in nanoseconds since
	// the Runtime's epoch: the instant passed to AdmitAt, or a later one
	// another caller already used (time never goes backwards inside a
	// Runtime). See AdmittedAt.
	n int64
}

// AdmittedAt returns the instant a was admitted at.
func (r *Runtime) AdmittedAt(a Admission) time.Time { return r.epoch.Add(time.Duration(a.n)) }

// Runtime is the live state of one (endpoint, role): a token bucket, a
// concurrency counter, a cooldown instant, outcome counters and the passive
// health state machine. Every method takes the instant explicitly and is
// safe for concurrent use.
//
// Instants passed in may come slightly out of order from concurrent
// callers; a Runtime never lets its time go backwards, because
// rate.Limiter, handed an older instant, moves its clock back and refills
// the same interval twice. For a rated role AdmitAt therefore holds a
// per-Runtime mutex from reading the instant to taking the token (the
// limiter takes its own mutex there anyway); everything else, including
// Release and the rate-limit outcome, uses atomics only. An unlimited role
// never locks in AdmitAt. A failure, and a success while a failure streak
// or an ejection is on record, take a second per-Runtime mutex that
// serialises the ejection bookkeeping; a success on a clean record (the
// common case) stays lock-free.
//
// A Runtime must not be copied. Build one with New.
type Runtime struct {
	name   string
	tier   int
	role   endpoint.Role
	limits endpoint.Limits // normalised
	bucket Bucket
	// rated is false when the bucket is unlimited (no token check needed
	// before taking the last slot).
	rated   bool
	maxConc int64
	epoch   time.Time

	onSlotFreed func()

	// admit serialises AdmitAt of a rated role: see the type's doc.
	admit sync.Mutex
	// latest is the latest instant seen, in nanoseconds since epoch.
	latest   atomic.Int64
	inFlight atomic.Int64
	cool     cooldown
	health   healthMachine
	// doubt and doubtWindow: see DoubtedAt.
	doubt       doubt
	doubtWindow time.Duration
	// lat is the latency estimate and starts the sum of the admission
	// instants (ns since the epoch) of the requests in flight: see CostAt.
	lat      latency
	starts   atomic.Int64
	admitted atomic.Uint64
	// timed holds the latency histograms of the methods timed on this
	// role (Timing).
	timed timedMethods
	// shared is the state every role of the endpoint shares: slots, lag,
	// cluster verification.
	shared *Shared

	ejection endpoint.Ejection
	// streakMu serialises the ejection bookkeeping: reading the state,
	// counting, ejecting. fails and ejections are written only under it,
	// and read without it only by the success fast path.
	streakMu sync.Mutex
	// fails counts consecutive failures since the last success or
	// ejection; ejections counts ejections since the last success.
	fails, ejections atomic.Uint32
	// streakFrom is the generation the latest ejection started: a success
	// admitted since resets the counts, whatever else moved the generation
	// meanwhile (a rate limit, the ejection's end applied on read); one
	// admitted before it (a slow answer of the streak that ejected) does
	// not. Under streakMu.
	streakFrom uint64

	successes  atomic.Uint64
	failures   atomic.Uint64
	rateLimits atomic.Uint64
	// refusedRate and refusedConc count the admissions the bucket and the
	// concurrency limit refused; ejected counts ejections.
	refusedRate atomic.Uint64
	refusedConc atomic.Uint64
	ejected     atomic.Uint64
}

// ErrRoleNotServed is returned by New for a role the spec does not
// serve.
var ErrRoleNotServed = errors.New("endpoint: role not served")

// New builds the state of spec's role, starting at start with a full
// bucket, no request in flight, no cooldown and the Available state.
func New(spec *endpoint.Spec, role endpoint.Role, start time.Time, opts Options) (*Runtime, error) {
	limits, ok := spec.Roles[role]
	if !ok {
		return nil, fmt.Errorf("endpoint %q, role %s: %w", spec.Name, role, ErrRoleNotServed)
	}
	limits = limits.Normalized()
	r := &Runtime{
		name:        spec.Name,
		tier:        spec.Tier,
		role:        role,
		limits:      limits,
		bucket:      opts.Bucket,
		rated:       true,
		maxConc:     int64(limits.MaxConcurrentRequests),
		epoch:       start,
		onSlotFreed: opts.OnSlotFreed,
		ejection:    opts.Ejection,
		doubtWindow: max(opts.DoubtWindow, 0),
		shared:      opts.Shared,
	}
	if r.shared == nil {
		r.shared = &Shared{}
	}
	r.doubt.at.Store(math.MinInt64)
	r.health.onChange = opts.OnStateChange
	if r.bucket == nil {
		r.bucket = NewRateBucket(limits)
		r.rated = limits.RequestsPerSecond > 0
	}
	return r, nil
}

// Name returns the endpoint's name.
func (r *Runtime) Name() string { return r.name }

// Tier returns the endpoint's tier.
func (r *Runtime) Tier() int { return r.tier }

// Role returns the role this state belongs to.
func (r *Runtime) Role() endpoint.Role { return r.role }

// Limits returns the normalised limits (see Limits.Normalized).
func (r *Runtime) Limits() endpoint.Limits { return r.limits }

// Shared returns the state the endpoint's roles share.
func (r *Runtime) Shared() *Shared { return r.shared }

// InFlight returns the concurrency slots held now.
func (r *Runtime) InFlight() int { return int(r.inFlight.Load()) }

// advance returns the instant to use for now: now itself, or the latest
// instant already seen when now is older. It records now as the latest.
func (r *Runtime) advance(now time.Time) (time.Time, int64) {
	n := int64(now.Sub(r.epoch))
	for {
		old := r.latest.Load()
		if n <= old {
			if n == old {
				return now, n
			}
			return r.epoch.Add(time.Duration(old)), old
		}
		if r.latest.CompareAndSwap(old, n) {
			return now, n
		}
	}
}

// peek is advance without recording now.
func (r *Runtime) peek(now time.Time) (time.Time, int64) {
	n := int64(now.Sub(r.epoch))
	if old := r.latest.Load(); n < old {
		return r.epoch.Add(time.Duration(old)), old
	}
	return now, n
}

// AdmitAt tries to admit one request at now, checking in order: now is
// before deadline (a zero deadline never blocks), the cooldown is over, a
// concurrency slot is free, a token is in the bucket. It is transactional:
// on success it holds one slot and has spent one token (ok is true); on a
// refusal it holds nothing and has spent nothing, and b says why. A slot
// taken for a token that turns out to be missing is given back before
// AdmitAt returns.
func (r *Runtime) AdmitAt(now, deadline time.Time) (a Admission, b Block, ok bool) {
	return r.admitAt(now, deadline, false, false)
}

// AdmitEjectedAt is AdmitAt except that a running ejection does not block
// (a rate-limit cooldown still does). It is the pool's panic mode, after
// Envoy's panic threshold: when ejections hold back most candidates of a
// request, routing to an ejected endpoint beats queueing every call on the
// few left.
func (r *Runtime) AdmitEjectedAt(now, deadline time.Time) (a Admission, b Block, ok bool) {
	return r.admitAt(now, deadline, true, false)
}

// admitAt is AdmitAt, ignoring an ejection when panic is set, for a
// request that holds a slot already when held is set.
func (r *Runtime) admitAt(now, deadline time.Time, panic, held bool) (a Admission, b Block, ok bool) {
	if r.rated {
		r.admit.Lock()
		defer r.admit.Unlock()
	}
	at, n := r.advance(now)
	if !deadline.IsZero() && !at.Before(deadline) {
		return a, Block{Reason: BlockedByDeadline}, false
	}
	if b, ok := r.cooldownBlock(n); ok && (!panic || b.Reason != BlockedByEjection) {
		return a, b, false
	}
	if held {
		// The slot is the caller's already.
	} else if r.maxConc == 0 {
		r.inFlight.Add(1)
	} else {
		for {
			v := r.inFlight.Load()
			if v >= r.maxConc {
				r.refusedConc.Add(1)
				return a, r.concurrencyBlock(v), false
			}
			// Taking the last slot for a missing token would show the
			// role full to others for a moment: look at the bucket first.
			// ReadyAt, not TokensAt: the bucket's own rule decides, so a
			// refusal here always comes with an instant after at.
			if v+1 == r.maxConc && r.rated {
				if ready := r.bucket.ReadyAt(at); ready.After(at) {
					r.refusedRate.Add(1)
					return a, Block{Reason: BlockedByRate, Until: ready}, false
				}
			}
			if r.inFlight.CompareAndSwap(v, v+1) {
				break
			}
		}
	}
	if !r.bucket.TakeAt(at) {
		r.refusedRate.Add(1)
		if held {
			return a, Block{Reason: BlockedByRate, Until: r.bucket.ReadyAt(at)}, false
		}
		r.releaseSlot(false)
		return a, Block{Reason: BlockedByRate, Until: r.bucket.ReadyAt(at)}, false
	}
	r.starts.Add(n)
	r.admitted.Add(1)
	return Admission{Generation: r.health.stateAt(n, &r.cool).generation(), n: n}, Block{}, true
}

// ProbeAt reports what AdmitAt would answer at now, without taking or
// recording anything.
func (r *Runtime) ProbeAt(now, deadline time.Time) Block {
	at, n := r.peek(now)
	if !deadline.IsZero() && !at.Before(deadline) {
		return Block{Reason: BlockedByDeadline}
	}
	if b, ok := r.cooldownBlock(n); ok {
		return b
	}
	if v := r.inFlight.Load(); r.maxConc > 0 && v >= r.maxConc {
		return r.concurrencyBlock(v)
	}
	if r.rated {
		if ready := r.bucket.ReadyAt(at); ready.After(at) {
			return Block{Reason: BlockedByRate, Until: ready}
		}
	}
	return Block{}
}

// cooldownBlock is the block at n of a running rate limit, else of a
// running ejection (cooldown.blockAt); ok is false when neither runs.
func (r *Runtime) cooldownBlock(n int64) (b Block, ok bool) {
	reason, until, ok := r.cool.blockAt(n)
	if !ok {
		return b, false
	}
	return Block{Reason: reason, Until: r.epoch.Add(time.Duration(until))}, true
}

func (r *Runtime) concurrencyBlock(v int64) Block {
	return Block{Reason: BlockedByConcurrency, InFlight: int(v), MaxConcurrent: int(r.maxConc)}
}

// Release gives back the concurrency slot of admission a. Call it exactly
// once per admission, after the outcome (if any) was recorded; it panics
// when no slot is held, which is a caller bug.
func (r *Runtime) Release(a Admission) {
	r.starts.Add(-a.n)
	r.releaseSlot(true)
}

// releaseSlot gives back one concurrency slot, and says so to OnSlotFreed
// when the slot was held (a Release) or every slot looked held with it.
// AdmitAt's give-back of a slot it took for a missing token says nothing
// otherwise: the role never looked full, so nobody waits for that slot,
// and the one it could wake is the request scanning.
func (r *Runtime) releaseSlot(held bool) {
	v := r.inFlight.Add(-1)
	if v < 0 {
		panic("endpoint: Release without a held slot")
	}
	if r.maxConc > 0 && (held || v+1 == r.maxConc) && r.onSlotFreed != nil {
		r.onSlotFreed()
	}
}

// SucceededAt records a success of a request admitted under generation gen:
// Degraded -> Available, and the consecutive-failure and ejection counts
// reset, when nothing changed the state since. A stale success (gen is not
// the current generation) is only counted.
func (r *Runtime) SucceededAt(now time.Time, gen uint64) {
	r.successes.Add(1)
	_, n := r.advance(now)
	if r.fails.Load() == 0 && r.ejections.Load() == 0 {
		// Nothing to reset: lock-free (a failure counted concurrently is
		// ordered after this success).
		r.health.succeeded(r.health.stateAt(n, &r.cool), gen)
		return
	}
	r.streak(n, gen, true, func(w healthWord) {
		r.fails.Store(0)
		r.ejections.Store(0)
		r.health.succeeded(w, gen)
	})
}

// FailedAt records a failure of a request admitted under generation gen.
// When nothing changed the state since (gen is current), it counts one more
// consecutive failure: Available -> Degraded, and at Ejection.After
// consecutive failures the role is ejected (state Ejected) for
// ejectionLength(ejections since the last success) from now; a running
// cooldown that ends later is kept and the state then left as it is. A
// stale failure is only counted in Failures: it neither moves the state nor
// counts towards an ejection.
func (r *Runtime) FailedAt(now time.Time, gen uint64) {
	r.failures.Add(1)
	_, n := r.advance(now)
	if !ejects(r.ejection) {
		r.health.failed(r.health.stateAt(n, &r.cool), gen)
		return
	}
	r.streak(n, gen, false, func(w healthWord) { r.countFailure(n, w) })
}

// streak runs f under streakMu with the state word at n, unless gen, the
// generation an outcome was admitted under, is stale: for a failure, any
// generation but the current one (a failure admitted before the last
// transition neither counts nor ejects); for a success, one older than
// the latest ejection (streakFrom), so that a success across a rate limit
// or across the ejection's end still resets the counts. The state
// transitions f makes still ask for the current generation
// (healthMachine.succeeded): such a success does not end a cooldown's
// state.
func (r *Runtime) streak(n int64, gen uint64, success bool, f func(w healthWord)) {
	r.streakMu.Lock()
	defer r.streakMu.Unlock()
	if w := r.health.stateAt(n, &r.cool); w.generation() == gen || success && gen >= r.streakFrom {
		f(w)
	}
}

// countFailure counts one more consecutive failure of w's (current)
// generation at n, ejecting at Ejection.After. It runs under streakMu.
func (r *Runtime) countFailure(n int64, w healthWord) {
	if fails := r.fails.Load() + 1; int64(fails) < int64(r.ejection.After) {
		r.fails.Store(fails)
		r.health.failed(w, w.generation())
		return
	}
	prior := r.ejections.Load()
	r.fails.Store(0)
	if prior < math.MaxUint32 {
		r.ejections.Store(prior + 1)
	}
	// The cooldown must be visible before the state says Ejected (see
	// healthMachine.ejected).
	if end := addSat(n, int64(ejectionLength(r.ejection, int(prior)))); extend(&r.cool.eject, end) && end > r.cool.rate.Load() {
		r.ejected.Add(1)
		r.health.ejected()
		r.streakFrom = r.health.load().generation()
	} else {
		// A longer cooldown runs (a rate limit): keep its state, but
		// leave Available, as any failure does.
		r.health.failed(w, w.generation())
	}
}

// RateLimitedAt records a provider rate limit at now: the role cools down
// for cooldownOf(limits, providerDelay) from now (a running, longer cooldown
// is kept) and its state becomes RateLimited, whatever generation the
// request was admitted under. The consecutive-failure and ejection counts
// are left as they are: a rate limit says nothing about the node's health.
func (r *Runtime) RateLimitedAt(now time.Time, providerDelay time.Duration) {
	r.rateLimits.Add(1)
	_, n := r.advance(now)
	// The cooldown must be visible before the state says RateLimited (see
	// healthMachine.rateLimited).
	extend(&r.cool.rate, addSat(n, int64(cooldownOf(r.limits, providerDelay))))
	r.health.rateLimited()
}

// StateAt returns the health state at now.
func (r *Runtime) StateAt(now time.Time) endpoint.Health {
	_, n := r.peek(now)
	return r.health.stateAt(n, &r.cool).state()
}

// UnansweredAt reports whether nothing the role did lately says it
// answers: it has failed and not answered since (state not Available at
// now), or it has requests in flight and has never answered one (a role
// that hangs from the start is Available until its first timeout).
func (r *Runtime) UnansweredAt(now time.Time) bool {
	return r.StateAt(now) != endpoint.Available || r.successes.Load() == 0 && r.inFlight.Load() > 0
}

// SnapshotAt copies the state at now. It holds no URL and no header.
func (r *Runtime) SnapshotAt(now time.Time) endpoint.Snapshot {
	at, n := r.peek(now)
	_, until := r.cool.activeAt(n)
	snap := endpoint.Snapshot{
		Name:              r.name,
		Tier:              r.tier,
		Role:              r.role,
		State:             r.health.stateAt(n, &r.cool).state(),
		RequestsPerSecond: r.limits.RequestsPerSecond,
		Burst:             r.limits.BurstCapacity,
		Tokens:            r.bucket.TokensAt(at),
		MaxConcurrent:     int(r.maxConc),
		InFlight:          int(r.inFlight.Load()),
		CooldownRemaining: max(0, time.Duration(until-n)),
		DoubtRemaining:    r.doubt.remainingAt(n, r.doubtWindow),
		Successes:         r.successes.Load(),
		Failures:          r.failures.Load(),
		RateLimits:        r.rateLimits.Load(),
		Admitted:          r.admitted.Load(),
		RefusedByRate:     r.refusedRate.Load(),
		RefusedByLimit:    r.refusedConc.Load(),
		Ejections:         r.ejected.Load(),
		Latency:           time.Duration(r.lat.decayed(n)),
		Cost:              time.Duration(r.CostAt(now)),
		ErrorRate:         r.ErrorRate(),
	}
	if q := r.TimingSummaryAt(at); q.Weight > 0 {
		snap.LatencyP50, snap.LatencyP95, snap.LatencyP99 = q.P50, q.P95, q.P99
	}
	snap.SlotLag, snap.SlotStanding = r.shared.Standing()
	snap.Verification, snap.Excluded = r.shared.Verification()
	// The freshest mark, the highest commitment on a tie.
	var newest time.Duration
	for c := slots.Commitment(0); c < slots.Commitments; c++ {
		if slot, age, ok := r.shared.Slot(at, c); ok && (snap.Slot == 0 || age <= newest) {
			snap.Slot, snap.SlotCommitment, newest = slot, c.Type(), age
		}
	}
	return snap
}
