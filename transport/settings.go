package transport

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/retrypolicy"
)

// Settings are the transport's tunables: what a configuration document
// sets ([retry] and [transport]). Values are taken as written, except
// where zero cannot be meant (a size limit, a timeout): there zero means
// the documented default. DefaultSettings returns every default.
type Settings struct {
	// Retry tunes the retry policy (the document's [retry] table).
	Retry retrypolicy.Settings `toml:"-"`
	// MaxResponseBytes bounds one response body, read as a stream. 0 means
	// 64 MiB.
	MaxResponseBytes int64 `toml:"max_response_bytes"`
	// ResponseBudgetBytes bounds the bytes of every response body the
	// client holds at once, over all its calls (plain, hedged, batch,
	// callback, the resolver's reads): each 2xx body is charged, its
	// Content-Length before it is read, otherwise as it is read, until its
	// call has decoded it. An answer that does not fit is refused at once,
	// never waited for: its call fails with an error matching
	// solroute.ErrBusy (a send refused after it was dispatched is
	// ambiguous, never resent). At least MaxResponseBytes, so that one
	// largest answer always fits an idle budget. 0 means the default:
	// 1/16 of the machine's memory (the least of its RAM, its cgroup's
	// limit and the Go memory limit), clamped to 64–256 MiB, and never
	// under MaxResponseBytes. See plans/018-reads-at-scale.md.
	ResponseBudgetBytes int64 `toml:"response_budget_bytes"`
	// AttemptTimeout bounds one attempt, on top of the endpoint's
	// RequestTimeout (or the method's own budget, methods.Method.Timeout)
	// and the time left before the call's deadline, even an attempt that
	// nothing could follow (to retry a lone endpoint on a new connection).
	// A value at or above the request timeout lets an attempt use the
	// whole budget (a hang is then never failed over).
	//
	// 0 means: an attempt is cut before the call's deadline only when the
	// time saved can buy another attempt, that is when another endpoint
	// could take the call before the deadline (none rate-limited or
	// ejected until then) and the retry policy could grant a retry (one is
	// left and the retry budget would pay); otherwise it runs until the
	// deadline. Such a read
	// (class Idempotent) is bounded by its endpoint's recent latency for
	// the method, AdaptiveMultiple × its p99, at least AdaptiveFloor,
	// doubled per counted retry the call already made (see
	// plans/010-adaptive-timeouts.md), and can use more than half the
	// budget when the endpoint is known to be that slow. Every other
	// attempt, and a read with no recent answers to go by in its
	// endpoint's role, gets half the call's budget (the time from its
	// start to its shared deadline), so that an endpoint that hangs leaves
	// time to fail over at least once. Sends always keep that fixed rule:
	// an ambiguous send costs far more than a slow one.
	//
	// Whatever the setting, an attempt of a call that is not Idempotent
	// (a send) is cut at its bound only while nothing was handed to a
	// connection: once it may have been written it cannot go elsewhere,
	// and it runs until the call's deadline.
	AttemptTimeout time.Duration `toml:"attempt_timeout"`
	// HedgeAfter, when positive, hedges reads: a call of class Idempotent
	// whose attempt has no answer after HedgeAfter sends the same request
	// to another endpoint, if one can be admitted at once and the retry
	// budget pays for it (one hedge per call), and takes the first good
	// answer; the other attempt is canceled. An attempt overtaken by its
	// hedge counts as a failure of its endpoint and puts it in doubt, so
	// HedgeAfter is also the line between slow and failing: set it above
	// the slowest method's normal latency. 0: no hedging. See
	// plans/006-hedged-reads.md.
	//
	// HedgeAuto (in a document, "auto") hedges each read at its endpoint's
	// recent p95 for the method, as Finagle's backup requests do: at least
	// HedgeAutoFloor, and HedgeAutoCold while nothing is known of the
	// method's latency. By construction one answer in twenty comes after
	// that delay, so an attempt overtaken by its hedge is slow, not
	// failing: its endpoint takes a failure towards ejection, but no
	// failure penalty in the balancing and no doubt (pool.Permit.Overtaken).
	// See plans/010-adaptive-timeouts.md.
	HedgeAfter time.Duration `toml:"hedge_after"`
	// MonotonicReads keeps, for the client (or for a Session carried in a
	// call's context), the highest context slot returned per commitment,
	// and never returns an older one: a read of a method that takes
	// minContextSlot asks for it (when the caller did not), and an answer
	// below the mark is retried elsewhere or fails with a *StaleError. See
	// plans/009-consistency.md. A context from WithMonotonicReads(ctx,
	// false) turns it off for one call.
	MonotonicReads bool `toml:"monotonic_reads"`
	// SlotProbeInterval, when positive, asks every read endpoint for its
	// slot (getSlot at confirmed) once per interval, paid from its own
	// read limits (a round is skipped for an endpoint that has no token
	// or slot free at once), so that lag is known before a read meets it.
	// 0: no probe; slots are learnt from answers alone.
	SlotProbeInterval time.Duration `toml:"slot_probe_interval"`
	// Coalesce lists the reads whose identical calls share one upstream
	// request: a call of one of them whose method and params (as encoded,
	// commitment included) are those of a call already in flight on this
	// client, and whose context routes nowhere of its own (no
	// WithEndpoint, WithCapabilities, WithAvoid or httptrace.ClientTrace),
	// waits for that call's answer, bounded by its own context and budget,
	// and decodes it into its own value; an answer below its own floor
	// (monotonic reads) is not taken: it asks on its own. Each entry must
	// be a read the registry holds as idempotent (New refuses a send or an
	// unknown method). Empty: no coalescing. DefaultSettings lists
	// getLatestBlockhash, getSlot, getEpochInfo,
	// getRecentPrioritizationFees, getAccountInfo and getMultipleAccounts.
	Coalesce []string `toml:"coalesce"`
}

// HedgeAuto is the value of Settings.HedgeAfter that hedges each read at
// its endpoint's recent p95 latency for the method ("auto" in a
// configuration document).
const HedgeAuto time.Duration = -1

// defaultMaxResponseBytes is the response size limit when
// Settings.MaxResponseBytes is 0.
const defaultMaxResponseBytes = 64 << 20

// DefaultSettings returns the defaults: retrypolicy.DefaultSettings, a 64
// MiB response limit, adaptive attempt timeouts for reads and half the
// call's budget for every other attempt, no hedging (providers bill per request), monotonic reads on (their cost is
// in docs/benchmarks.md), no slot probe (it costs requests), and
// coalescing for the reads many goroutines of one bot make at the same
// instant (Coalesce).
func DefaultSettings() Settings {
	return Settings{
		Retry:            retrypolicy.DefaultSettings(),
		MaxResponseBytes: defaultMaxResponseBytes,
		MonotonicReads:   true,
		Coalesce: []string{"getLatestBlockhash", "getSlot", "getEpochInfo", "getRecentPrioritizationFees",
			"getAccountInfo", "getMultipleAccounts"},
	}
}

// Bounds of Validate.
const (
	// maxResponseLimit bounds MaxResponseBytes (1 GiB).
	maxResponseLimit = 1 << 30
	// maxResponseBudget bounds ResponseBudgetBytes (64 GiB).
	maxResponseBudget = 64 << 30
	// maxTimeout bounds AttemptTimeout, HedgeAfter (but for HedgeAuto)
	// and SlotProbeInterval.
	maxTimeout = time.Hour
)

// Validate reports every field out of range, as *endpoint.Problem values
// joined: the retry settings' problems, their paths under "retry." (the
// document's [retry] table), then a response limit outside [0, 1 GiB] and
// a timeout outside [0, 1h] (HedgeAfter may also be HedgeAuto), and a
// response budget under one largest response or over 64 GiB, and a
// Coalesce entry that is no method name or repeats an earlier one (at
// "coalesce[i]"; whether it is a read is the registry's to say, checked
// by the engine). Each names its TOML key and quotes no value.
func (s Settings) Validate() error {
	var errs []error
	if err := s.Retry.Validate(); err != nil {
		for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
			p := *e.(*endpoint.Problem)
			p.Path = "retry." + p.Path
			errs = append(errs, &p)
		}
	}
	if s.MaxResponseBytes < 0 || s.MaxResponseBytes > maxResponseLimit {
		errs = append(errs, &endpoint.Problem{Path: "max_response_bytes", Message: "must be between 1 and 1073741824 (0 means 64 MiB)"})
	}
	if p := s.budgetProblem(); p != nil {
		errs = append(errs, p)
	}
	for _, d := range []struct {
		key  string
		v    time.Duration
		auto bool // HedgeAuto is valid too
	}{{"attempt_timeout", s.AttemptTimeout, false}, {"hedge_after", s.HedgeAfter, true},
		{"slot_probe_interval", s.SlotProbeInterval, false}} {
		switch {
		case d.auto && d.v == HedgeAuto:
		case d.auto && (d.v < 0 || d.v > maxTimeout):
			errs = append(errs, &endpoint.Problem{Path: d.key, Message: `must be between 0s and 1h, or HedgeAuto ("auto")`})
		case d.v < 0 || d.v > maxTimeout:
			errs = append(errs, &endpoint.Problem{Path: d.key, Message: "must be between 0s and 1h"})
		}
	}
	return errors.Join(append(errs, coalesceProblems(s.Coalesce)...)...)
}

// coalesceProblems are the entries of Coalesce that cannot be method
// names, or repeat an earlier one: each names its index.
func coalesceProblems(list []string) []error {
	var errs []error
	for i, m := range list {
		path := "coalesce[" + strconv.Itoa(i) + "]"
		switch {
		case m == "" || strings.IndexFunc(m, func(r rune) bool { return r == ' ' || !unicode.IsPrint(r) }) >= 0:
			errs = append(errs, &endpoint.Problem{Path: path, Message: "is not a method name: want a non-empty name without spaces or control characters"})
		case slices.Contains(list[:i], m):
			errs = append(errs, &endpoint.Problem{Path: path, Message: "repeats an earlier entry"})
		}
	}
	return errs
}

// budgetProblem reports a ResponseBudgetBytes that is negative, over
// 64 GiB, or under the response size limit (one largest answer would
// never fit); 0 is the default.
func (s Settings) budgetProblem() *endpoint.Problem {
	largest := s.MaxResponseBytes
	if largest == 0 {
		largest = defaultMaxResponseBytes
	}
	switch b := s.ResponseBudgetBytes; {
	case b == 0:
		return nil
	case b < 0 || b > maxResponseBudget:
		return &endpoint.Problem{Path: "response_budget_bytes", Message: "must be between 1 and 68719476736 (0 means 1/16 of memory, 64 to 256 MiB)"}
	case b < largest:
		return &endpoint.Problem{Path: "response_budget_bytes",
			Message: "must be at least max_response_bytes (64 MiB when left out): one largest response must fit"}
	}
	return nil
}
