package rolestate

import (
	"math"
	"time"

	"github.com/solroute/solroute/endpoint"

	"golang.org/x/time/rate"
)

// Bucket is the token bucket of one (endpoint, role). It is an interface so
// that a limiter shared between processes can replace the in-process one;
// every method takes the instant explicitly and must be safe for concurrent
// use. A Runtime calls TakeAt with instants that never go backwards and
// never concurrently for one bucket.
type Bucket interface {
	// TakeAt spends one token at t if one is there and reports whether it
	// did. It never waits and never spends on a refusal.
	TakeAt(t time.Time) bool
	// ReadyAt returns the earliest instant, at or after t, at which TakeAt
	// would succeed if nobody else took a token meanwhile.
	ReadyAt(t time.Time) time.Time
	// TokensAt returns the tokens available at t, +Inf when unlimited.
	TokensAt(t time.Time) float64
}

// NewRateBucket returns the default Bucket for limits: a
// golang.org/x/time/rate Limiter refilling at limits.RequestsPerSecond up
// to the (normalised) burst, starting full, or an unlimited bucket when the
// rate is 0. It drives the limiter only through its explicit-time methods.
func NewRateBucket(limits endpoint.Limits) Bucket {
	l := limits.Normalized()
	if l.RequestsPerSecond == 0 {
		return unlimitedBucket{}
	}
	return &rateBucket{
		lim: rate.NewLimiter(rate.Limit(l.RequestsPerSecond), l.BurstCapacity),
		rps: l.RequestsPerSecond,
	}
}

// rateBucket adapts a rate.Limiter to Bucket.
type rateBucket struct {
	lim *rate.Limiter
	rps float64
}

// TakeAt spends one token with AllowN, which reserves nothing on a refusal.
func (b *rateBucket) TakeAt(t time.Time) bool { return b.lim.AllowN(t, 1) }

// TokensAt returns the limiter's tokens at t.
func (b *rateBucket) TokensAt(t time.Time) float64 { return b.lim.TokensAt(t) }

// ReadyAt searches the first instant at which TakeAt would succeed, asking
// TokensAt instead of reserving and cancelling, so that asking never changes
// the bucket. The limiter's float arithmetic does not land on whole
// nanoseconds, so the estimate is refined by a binary search with the
// limiter's own acceptance rule (see takeable). A token further away than
// the longest time.Duration (a rate below about 1e-10 per second) is
// reported at t plus the longest Duration: far in the future, never an
// overflow that would bring it back to t.
func (b *rateBucket) ReadyAt(t time.Time) time.Time {
	const never = time.Duration(math.MaxInt64)
	tokens := b.lim.TokensAt(t)
	if b.takeable(tokens) {
		return t
	}
	// Usually the estimate, rounded up, is the answer: check it and the
	// nanosecond before.
	est := floatDuration(math.Ceil((1 - tokens) / b.rps * float64(time.Second)))
	if est == never {
		return t.Add(never)
	}
	if b.takeable(b.lim.TokensAt(t.Add(est))) && (est <= 1 || !b.takeable(b.lim.TokensAt(t.Add(est-1)))) {
		return t.Add(max(est, 1))
	}
	// Otherwise search a window around it: lo never takeable, hi always.
	const slack = time.Microsecond
	lo, hi := max(0, est-slack), time.Duration(addSat(int64(est), int64(slack)))
	if lo > 0 && b.takeable(b.lim.TokensAt(t.Add(lo))) {
		lo = 0
	}
	for !b.takeable(b.lim.TokensAt(t.Add(hi))) {
		if hi == never {
			return t.Add(never)
		}
		lo, hi = hi, time.Duration(addSat(int64(hi), int64(hi)))
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if b.takeable(b.lim.TokensAt(t.Add(mid))) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return t.Add(hi)
}

// takeable mirrors rate.Limiter's AllowN(t, 1) on the tokens at t: it
// accepts when the shortfall converts to a zero wait, which truncates to
// whole nanoseconds. A wait too long for a Duration is never zero (the
// limiter caps it at InfDuration; a plain conversion would wrap it negative
// and accept).
func (b *rateBucket) takeable(tokens float64) bool {
	if tokens >= 1 {
		return true
	}
	return floatDuration((1-tokens)/b.rps*float64(time.Second)) <= 0
}

// unlimitedBucket admits everything.
type unlimitedBucket struct{}

func (unlimitedBucket) TakeAt(time.Time) bool         { return true }
func (unlimitedBucket) ReadyAt(t time.Time) time.Time { return t }
func (unlimitedBucket) TokensAt(time.Time) float64    { return math.Inf(1) }
