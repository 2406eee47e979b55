package pool

import (
	"errors"
	"time"

	"github.com/solroute/solroute/endpoint"
)

// Settings are the pool's tunables: what a configuration document sets
// ([pool] and [pool.ejection]). Values are taken as written: the zero
// Settings never ejects and puts nothing in doubt. DefaultSettings returns
// the defaults.
type Settings struct {
	// Ejection configures passive ejection after consecutive failures, for
	// every (endpoint, role).
	Ejection endpoint.Ejection `toml:"ejection"`
	// DoubtWindow is how long an endpoint stays in doubt after one of its
	// attempts, of any method and role, ended by its own doing the way
	// that would leave a call that must never be sent twice ambiguous
	// (retrypolicy.Outcome.Doubtful: a reset after writing, a timeout, a
	// 5xx, a broken body). Requests with AvoidDoubt use such an endpoint
	// only as a last resort. 0: nothing is ever in doubt.
	DoubtWindow time.Duration `toml:"doubt_window"`
	// DoubtPatience is how long a request with AvoidDoubt waits for an
	// endpoint that is not in doubt, when every one is busy, rate-limited
	// or cooling down, before it takes one in doubt; at most half the time
	// left before its deadline. 0: it takes one at once.
	DoubtPatience time.Duration `toml:"doubt_patience"`
	// MaxSlotLag is how many slots an endpoint may be behind (or ahead
	// of) the pool's reference slot before requests use it only as a
	// last resort (see slots.go, plans/009-consistency.md). 0 turns
	// lag-aware routing off; slots are still tracked and shown.
	MaxSlotLag int `toml:"max_slot_lag"`
	// HistoryAvoid is how long an endpoint is avoided for a history
	// method (getTransaction, getBlock, ...; methods.Method.History) after it
	// answered a read of it that it lacks the history asked for (-32001,
	// -32011, -32018, -32019): such reads try it only after every other
	// endpoint, and still use it when no other can be had. 0: never
	// avoided.
	HistoryAvoid time.Duration `toml:"history_avoid"`
}

// DefaultSettings returns the defaults: endpoint.DefaultEjection; a doubt
// window of 30 s (Envoy's base ejection time: a provider that resets one
// request in ten thousand is avoided by sends most of the time, at no cost
// while peers are up); a doubt patience of 250 ms (well under a slot,
// far under what an ambiguous send costs its caller: polling its signature
// until the blockhash expires, about a minute); a max slot lag of
// 16 slots; a history avoidance of 5 minutes (what it reacts to lasts minutes to
// forever; see HistoryAvoid).
func DefaultSettings() Settings {
	return Settings{
		Ejection:      endpoint.DefaultEjection(),
		DoubtWindow:   30 * time.Second,
		DoubtPatience: 250 * time.Millisecond,
		MaxSlotLag:    defaultMaxSlotLag,
		HistoryAvoid:  defaultHistoryAvoid,
	}
}

// defaultHistoryAvoid is Settings.HistoryAvoid's default: 5 minutes. What
// it reacts to is a node's configuration (history off, a ledger without
// long-term storage) or an outage of its storage, which last minutes to
// forever; one probe every 5 minutes per endpoint and method costs a
// history reader nothing, and a node whose storage is back regains its
// reads within 5 minutes.
const defaultHistoryAvoid = 5 * time.Minute

// maxDoubt bounds DoubtWindow and DoubtPatience.
const maxDoubt = time.Hour

// Validate reports every field out of range, joined, each naming its TOML
// key (ejection fields as "ejection.KEY") and quoting no value.
func (s Settings) Validate() error {
	var errs []error
	if err := s.Ejection.Validate(); err != nil {
		for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
			p := *e.(*endpoint.Problem)
			p.Path = "ejection." + p.Path
			errs = append(errs, &p)
		}
	}
	for _, d := range []struct {
		key string
		v   time.Duration
	}{{"doubt_window", s.DoubtWindow}, {"doubt_patience", s.DoubtPatience}, {"history_avoid", s.HistoryAvoid}} {
		if d.v < 0 || d.v > maxDoubt {
			errs = append(errs, &endpoint.Problem{Path: d.key, Message: "must be between 0s and 1h"})
		}
	}
	if s.MaxSlotLag < 0 || s.MaxSlotLag > maxMaxSlotLag {
		errs = append(errs, &endpoint.Problem{Path: "max_slot_lag", Message: "must be between 0 and 100000"})
	}
	return errors.Join(errs...)
}

// defaultMaxSlotLag is Settings.MaxSlotLag's default: 16 slots, about
// 6.4 s. Healthy nodes differ by a few slots (a leader's 4-slot window,
// replay and gossip delays, a processed fork); 16 leaves room for that
// and for the drift of a mark extrapolated over a few seconds without
// answers, and still catches a node long before the 128-slot health
// distance at which agave itself calls it behind.
const defaultMaxSlotLag = 16

// maxMaxSlotLag bounds MaxSlotLag: about 11 hours of slots.
const maxMaxSlotLag = 100_000

// Bucket is the token bucket of one (endpoint, role). It is an interface so
// that a limiter shared between processes can replace the in-process one;
// every method takes the instant explicitly and must be safe for
// concurrent use. The pool calls TakeAt with instants that never go
// backwards and never concurrently for one bucket.
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
