package redislimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/pool"
)

// Options carry what code supplies and a document does not. The zero
// value is valid.
type Options struct {
	// Clock is the source of every instant the limiter sends to Redis and
	// of its lease lifetimes, timeouts and retries. Nil means the real
	// clock. It must be the client's clock (solroute.Hooks.Clock).
	Clock clockwork.Clock
	// Logger receives one line when Redis stops answering and one when it
	// answers again, naming no address. Nil discards.
	Logger *slog.Logger
	// OpTimeout is how long a lease request may go unanswered, on Clock,
	// before the limiter counts Redis as down and falls back; it also
	// bounds go-redis's dial, read, write and pool waits (in real time).
	// A fifth of it is the settle after Redis answers again: no lease is
	// asked for before it ends, so that every replica's fallback spending
	// is charged first (plans/013). 0 means 250 ms.
	OpTimeout time.Duration
	// LeaseTTL is how long leased tokens stay usable after the instant
	// they were asked for; unspent ones are then dropped. It bounds how
	// far leasing can move admissions between windows: plans/013. 0 means
	// 500 ms.
	LeaseTTL time.Duration
	// MaxLease caps the tokens one request to Redis takes; the cap is
	// also at most burst / Replicas (at least 1). 0 means 1024.
	MaxLease int
	// RetryInterval is how often, while Redis is down, the limiter asks
	// it again (one PING, at every multiple of RetryInterval on Clock since
	// the Unix epoch, so that replicas whose clocks agree ask together).
	// It should exceed OpTimeout. 0 means 1 s.
	RetryInterval time.Duration
	// StartupTimeout bounds the check New makes that the server takes the
	// URL's credentials. 0 means 2 s.
	StartupTimeout time.Duration
	// Seed seeds the jitter of retries after a refusal. 0 means random.
	Seed uint64
}

// Defaults of Options.
const (
	defaultOpTimeout      = 250 * time.Millisecond
	defaultLeaseTTL       = 500 * time.Millisecond
	defaultMaxLease       = 1024
	defaultRetryInterval  = time.Second
	defaultStartupTimeout = 2 * time.Second
)

// Limiter shares the token buckets of a pool's (endpoint, role)s between
// processes through one Redis: a pool.Limiter, for solroute.Hooks.Limits.
// It is safe for concurrent use; Close it when done (after the pool's
// last call).
type Limiter struct {
	clock clockwork.Clock
	log   *slog.Logger
	// notes are the log lines fail and ok decided on, written later by
	// flush, off the lock of the bucket that decided them: a slow log
	// handler must not hold an admission.
	notesMu sync.Mutex
	notes   []func()
	client  *redis.Client

	prefix     string
	replicas   int
	failClosed bool
	opTimeout  time.Duration
	leaseTTL   time.Duration
	maxLease   int
	retry      time.Duration
	seed       uint64

	// ctx is cancelled by Close; every request runs under it.
	ctx    context.Context
	cancel context.CancelFunc
	// closedFlag is set by Close. It is written under mu, which also
	// guards the Add of wg, so that Close's Wait sees every request
	// started; readers that start nothing load it without the lock.
	mu         sync.Mutex
	closedFlag atomic.Bool
	wg         sync.WaitGroup

	// down is true from a failed request until one succeeds; downSince
	// is when (ns on the clock). While down, probeTimer (guarded by mu)
	// is armed for nextProbe (ns on the clock, on the grid of
	// RetryInterval: probe.go); probeGen tells a stopped timer's late
	// callback from the current one's. leaseFrom (ns) is the settle after
	// Redis answered again: no lease request starts before it; returnDue
	// says the answer that brought it back has yet to make the fallen
	// buckets return (answered, off the buckets' locks).
	down       atomic.Bool
	downSince  atomic.Int64
	nextProbe  atomic.Int64
	leaseFrom  atomic.Int64
	returnDue  atomic.Bool
	probeTimer clockwork.Timer
	probeGen   uint64
	settle     time.Duration
	// fallen are the buckets that fell back since they last returned, for
	// returnAll (guarded by fallenMu, taken after a bucket's mu).
	fallenMu sync.Mutex
	fallen   []*bucket
	// buckets counts buckets made, to seed each one's jitter.
	buckets atomic.Uint64
	// thinWarned holds the endpoint:role keys whose burst is below
	// Replicas, warned of once each, and thinShares counts them for the
	// outage's line (share.go).
	thinWarned sync.Map
	thinShares atomic.Uint64

	stats counters
	// started counts the goroutines start ran (requests and probes), and
	// onAnswer, set by tests before any bucket is used, is called at the
	// end of each, after its answer is applied: tests wait for them.
	started  atomic.Uint64
	onAnswer func()
}

// counters are the Stats, as atomics.
type counters struct {
	ops, requests, granted, refused, errors atomic.Uint64
	taken, expired, empty, fallbackTaken    atomic.Uint64
	fallbackDeny, charged                   atomic.Uint64
	fallbacks, recoveries                   atomic.Uint64
}

// Stats counts what a Limiter did since New.
type Stats struct {
	// Ops counts round trips to Redis: one per request, two when the
	// script had to be sent again (a new or restarted server), and one
	// per probe while Redis is counted down.
	Ops uint64
	// Requests counts lease requests (and the requests that carry a
	// bucket's fallback admissions back, see Charged), answered or not.
	Requests uint64
	// Granted counts the tokens Redis granted; Refused the requests it
	// answered with none (the shared bucket was empty); Errors the
	// requests that failed or went unanswered in time.
	Granted, Refused, Errors uint64
	// Taken counts admissions paid with leased tokens; Expired the leased
	// tokens dropped unspent (LeaseTTL); Empty the TakeAt refused for an
	// empty lease while Redis was up (a caller then waits for a request's
	// answer, or for the shared bucket to refill).
	Taken, Expired, Empty uint64
	// FallbackTaken counts admissions paid from the local fallback
	// buckets while Redis was down; FallbackRefused the admissions they
	// (or fail-closed) refused then.
	FallbackTaken, FallbackRefused uint64
	// Charged counts the fallback admissions charged to the shared
	// buckets when Redis answered again (those of the last burst /
	// rate seconds before; plans/013, "Faults").
	Charged uint64
	// Fallbacks counts the times Redis went from answering to not;
	// Recoveries the times it came back.
	Fallbacks, Recoveries uint64
	// Down is true while Redis is counted as down.
	Down bool
}

// Stats returns the counters now.
func (l *Limiter) Stats() Stats {
	c := &l.stats
	return Stats{
		Ops: c.ops.Load(), Requests: c.requests.Load(), Granted: c.granted.Load(), Refused: c.refused.Load(),
		Errors: c.errors.Load(), Taken: c.taken.Load(), Expired: c.expired.Load(), Empty: c.empty.Load(),
		FallbackTaken: c.fallbackTaken.Load(), FallbackRefused: c.fallbackDeny.Load(), Charged: c.charged.Load(),
		Fallbacks: c.fallbacks.Load(), Recoveries: c.recoveries.Load(), Down: l.down.Load(),
	}
}

// New checks s (config.Limits.Validate, and the URL's query options;
// s.Backend must be config.BackendRedis), connects to the Redis of s.URL
// and checks, within Options.StartupTimeout, that it takes the URL's
// credentials and database: a *SetupError when it does not. A server that
// cannot be reached is no error: the limiter starts on its fallback and
// logs it. ctx bounds that check too. Pass the Limiter in
// solroute.Hooks.Limits; Close it after the clients that use it.
func New(ctx context.Context, s config.Limits, opts Options) (*Limiter, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("redislimit: invalid [limits]: %w", err)
	}
	if s.Backend != config.BackendRedis {
		return nil, fmt.Errorf(`redislimit: [limits] backend is %q: set backend = "redis" (config.BackendRedis) and its url`, s.Backend)
	}
	ro, err := redis.ParseURL(s.URL.Reveal())
	if err != nil {
		// Validate accepted its scheme, host, port and database; go-redis's
		// error quotes the URL.
		return nil, fmt.Errorf("redislimit: invalid [limits]: %w",
			&endpoint.Problem{Path: "url", Message: "has a query option go-redis does not know, or a value it cannot read"})
	}
	l := &Limiter{
		clock: opts.Clock, log: opts.Logger,
		prefix: s.KeyPrefix, replicas: max(s.Replicas, 1), failClosed: s.FailClosed,
		opTimeout: orDefault(opts.OpTimeout, defaultOpTimeout), leaseTTL: orDefault(opts.LeaseTTL, defaultLeaseTTL),
		maxLease: opts.MaxLease, retry: orDefault(opts.RetryInterval, defaultRetryInterval), seed: opts.Seed,
	}
	l.settle = l.opTimeout / 5
	if l.clock == nil {
		l.clock = clockwork.NewRealClock()
	}
	if l.maxLease <= 0 {
		l.maxLease = defaultMaxLease
	}
	if l.seed == 0 {
		l.seed = rand.Uint64()
	}
	configure(ro, l.opTimeout)
	l.client = redis.NewClient(ro)
	l.ctx, l.cancel = context.WithCancel(context.Background())
	if err := l.checkSetup(ctx, orDefault(opts.StartupTimeout, defaultStartupTimeout)); err != nil {
		l.cancel()
		_ = l.client.Close()
		return nil, err
	}
	return l, nil
}

// checkSetup asks the server, within timeout on the clock and ctx, to run
// what the limiter needs. A refusal waiting will not fix is a
// *SetupError, and ctx ending its error; a server that does not answer
// is none: the limiter starts down, on its fallback.
func (l *Limiter) checkSetup(ctx context.Context, timeout time.Duration) error {
	start := l.clock.Now()
	check, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := l.clock.AfterFunc(timeout, func() { cancel(errAbandoned) })
	defer timer.Stop()
	// A PING answered is not enough: an account may be let in and refused
	// the lease script (an ACL without EVAL, EVALSHA or the key prefix).
	// A lease of one token with no burst is always refused and writes
	// nothing, but needs everything a real lease needs.
	err := l.client.Ping(check).Err()
	if err == nil {
		_, err = lease(check, l.client, l.prefix+"setup-check", ask{now: start, interval: 1, want: 1, least: 1})
	}
	if err == nil {
		return nil
	}
	kind := classify(err)
	if errors.Is(context.Cause(check), errAbandoned) {
		kind = kindTimeout
	}
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("redislimit: %w", ctx.Err())
	case kind.isSetup():
		return &SetupError{Kind: kind}
	}
	l.fail(start, kind)
	l.flush()
	return nil
}

// minPoolSize is the least pool size the limiter gives go-redis. Its pool
// stops dialing after PoolSize failed dials in a row and tries again only
// once a second, on its own (real-time) schedule; with 1024, an outage
// probed once a second meets that only after 17 minutes, and until then
// every replica's probe dials on the grid.
const minPoolSize = 1024

// configure sets what the limiter needs of go-redis over the URL's
// options: no retries of its own (a failed lease falls back at once and is
// asked again later), short timeouts, a pool large enough that its dial
// circuit breaker does not move the probes off their grid, a dialer whose
// errors name no address, no maintenance-notification handshake.
func configure(ro *redis.Options, timeout time.Duration) {
	ro.PoolSize = max(ro.PoolSize, minPoolSize)
	ro.MaxRetries = -1
	ro.DialerRetries = 1
	ro.DialTimeout = timeout
	ro.ReadTimeout = timeout
	ro.WriteTimeout = timeout
	ro.PoolTimeout = timeout
	ro.DisableIdentity = true
	ro.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	dial := redis.NewDialer(ro)
	ro.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, &dialError{err: err}
		}
		return c, nil
	}
}

// orDefault returns d, or def when d is not positive.
func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// NewBucket returns the shared bucket of spec's role (pool.Limiter); nil (the pool's unlimited bucket) when the role
// has no rate. Its key is KeyPrefix + spec.Name + ":" + role: never the
// URL.
func (l *Limiter) NewBucket(spec *endpoint.Spec, role endpoint.Role) pool.Bucket {
	limits, ok := spec.Roles[role]
	if !ok {
		return nil
	}
	limits = limits.Normalized()
	if limits.RequestsPerSecond == 0 {
		return nil
	}
	b := newBucket(l, spec.Name, role, limits)
	l.warnThinShare(spec.Name, role, limits)
	return b
}

// Close stops every lease request and closes the connections. Buckets
// used after Close admit from their fallback (or, failing closed,
// refuse). It is idempotent.
func (l *Limiter) Close() error {
	l.mu.Lock()
	if l.closedFlag.Load() {
		l.mu.Unlock()
		return nil
	}
	l.closedFlag.Store(true)
	l.stopProbeLocked()
	l.mu.Unlock()
	l.cancel()
	err := l.client.Close()
	l.wg.Wait()
	return err
}

// start runs f in a goroutine Close waits for; it reports false, running
// nothing, once Close has begun.
func (l *Limiter) start(f func()) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.startLocked(f)
}

// startLocked is start with l.mu held.
func (l *Limiter) startLocked(f func()) bool {
	if l.closedFlag.Load() {
		return false
	}
	l.wg.Add(1)
	l.started.Add(1)
	go func() {
		defer l.wg.Done()
		f()
		if h := l.onAnswer; h != nil {
			h()
		}
	}()
	return true
}

// fail records a failed request at t: the first failure while up moves the
// limiter down, counts a fallback and logs it; while down, the probe timer
// is armed for the next grid instant. The state and the timer change
// together under mu, so that a concurrent ok cannot leave the limiter down
// with no probe to come.
func (l *Limiter) fail(t time.Time, kind Kind) {
	l.stats.errors.Add(1)
	l.mu.Lock()
	first := !l.down.Swap(true)
	if first {
		l.downSince.Store(t.UnixNano())
	}
	l.armProbeLocked(t)
	l.mu.Unlock()
	if !first {
		return
	}
	l.stats.fallbacks.Add(1)
	if l.log != nil {
		mode := "admitting at the local fallback share (rate / replicas)"
		if l.failClosed {
			mode = "refusing admissions (fail_closed)"
		} else if n := l.thinShares.Load(); n > 0 {
			mode += "; " + strconv.FormatUint(n, 10) + " roles with burst_capacity below replicas admit one token per replica at a time, at spread phases"
		}
		l.note(func() {
			l.log.LogAttrs(context.Background(), slog.LevelWarn, "redislimit: redis not answering; "+mode,
				slog.String("reason", kind.String()), slog.Int("replicas", l.replicas),
				slog.Bool("fail_closed", l.failClosed), slog.Duration("retry_every", l.retry))
		})
	}
}

// note keeps a log line for flush.
func (l *Limiter) note(f func()) {
	l.notesMu.Lock()
	defer l.notesMu.Unlock()
	l.notes = append(l.notes, f)
}

// flush writes the log lines noted so far, in order. It runs on a
// request's goroutine after its answer is applied (and in New), never
// under a bucket's lock.
func (l *Limiter) flush() {
	l.notesMu.Lock()
	notes := l.notes
	l.notes = nil
	l.notesMu.Unlock()
	for _, f := range notes {
		f()
	}
}

// ok records a request answered at t: the limiter is up again, and no
// lease starts before t + settle (the other replicas' charges land first).
func (l *Limiter) ok(t time.Time) {
	if !l.down.Load() {
		return
	}
	l.mu.Lock()
	if !l.down.Swap(false) {
		l.mu.Unlock()
		return
	}
	l.leaseFrom.Store(t.Add(l.settle).UnixNano())
	l.returnDue.Store(true)
	l.stopProbeLocked()
	l.mu.Unlock()
	l.stats.recoveries.Add(1)
	if l.log != nil {
		downFor := t.Sub(time.Unix(0, l.downSince.Load()))
		l.note(func() {
			l.log.LogAttrs(context.Background(), slog.LevelInfo, "redislimit: redis answering again; shared limits resume",
				slog.Duration("down_for", downFor))
		})
	}
}
