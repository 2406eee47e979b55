package retry

import (
	"fmt"
	"testing"
	"time"

	"github.com/solroute/solroute/retrypolicy"
)

// exact is a jitter source that returns the ceiling itself, so delays are
// exactly the backoff ceilings.
func exact(ceiling time.Duration) time.Duration { return ceiling }

const (
	yes = true
	no  = false
)

// TestDecideTable pins every Cause × DispatchState × Class (11 × 3 × 3) for a
// first failure with no deadline and no provider delay. The rows are written
// out by hand, not derived from the rules, so any rule change breaks a row.
func TestDecideTable(t *testing.T) {
	type row struct {
		cause                     retrypolicy.Cause
		dispatch                  retrypolicy.DispatchState
		class                     retrypolicy.Class
		retry, other, transparent bool
		rule                      retrypolicy.Rule
	}
	const (
		ND   = retrypolicy.NotDispatched
		MD   = retrypolicy.MaybeDispatched
		AN   = retrypolicy.Answered
		IDEM = retrypolicy.Idempotent
		NAD  = retrypolicy.NeverAfterDispatch
		NA   = retrypolicy.NotApplicable
	)
	rows := []row{
		{retrypolicy.Connection, ND, IDEM, yes, yes, yes, retrypolicy.RuleTransparentRetry},
		{retrypolicy.Connection, ND, NAD, yes, yes, yes, retrypolicy.RuleTransparentRetry},
		{retrypolicy.Connection, ND, NA, no, no, no, retrypolicy.RuleNotApplicable},
		{retrypolicy.Connection, MD, IDEM, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.Connection, MD, NAD, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.Connection, MD, NA, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.Connection, AN, IDEM, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.Connection, AN, NAD, no, no, no, retrypolicy.RuleAnsweredMayHaveActed},
		{retrypolicy.Connection, AN, NA, no, no, no, retrypolicy.RuleAnsweredMayHaveActed},

		{retrypolicy.Timeout, ND, IDEM, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.Timeout, ND, NAD, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.Timeout, ND, NA, no, no, no, retrypolicy.RuleNotApplicable},
		{retrypolicy.Timeout, MD, IDEM, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.Timeout, MD, NAD, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.Timeout, MD, NA, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.Timeout, AN, IDEM, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.Timeout, AN, NAD, no, no, no, retrypolicy.RuleAnsweredMayHaveActed},
		{retrypolicy.Timeout, AN, NA, no, no, no, retrypolicy.RuleAnsweredMayHaveActed},

		{retrypolicy.RateLimited, ND, IDEM, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.RateLimited, ND, NAD, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.RateLimited, ND, NA, no, no, no, retrypolicy.RuleNotApplicable},
		{retrypolicy.RateLimited, MD, IDEM, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.RateLimited, MD, NAD, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.RateLimited, MD, NA, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.RateLimited, AN, IDEM, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.RateLimited, AN, NAD, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.RateLimited, AN, NA, no, no, no, retrypolicy.RuleNotApplicable},

		{retrypolicy.TemporaryHTTP, ND, IDEM, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.TemporaryHTTP, ND, NAD, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.TemporaryHTTP, ND, NA, no, no, no, retrypolicy.RuleNotApplicable},
		{retrypolicy.TemporaryHTTP, MD, IDEM, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.TemporaryHTTP, MD, NAD, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.TemporaryHTTP, MD, NA, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.TemporaryHTTP, AN, IDEM, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.TemporaryHTTP, AN, NAD, no, no, no, retrypolicy.RuleAnsweredMayHaveActed},
		{retrypolicy.TemporaryHTTP, AN, NA, no, no, no, retrypolicy.RuleAnsweredMayHaveActed},

		{retrypolicy.NodeBehind, ND, IDEM, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.NodeBehind, ND, NAD, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.NodeBehind, ND, NA, no, no, no, retrypolicy.RuleNotApplicable},
		{retrypolicy.NodeBehind, MD, IDEM, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.NodeBehind, MD, NAD, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.NodeBehind, MD, NA, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.NodeBehind, AN, IDEM, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.NodeBehind, AN, NAD, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.NodeBehind, AN, NA, no, no, no, retrypolicy.RuleNotApplicable},

		{retrypolicy.Request, ND, IDEM, no, no, no, retrypolicy.RuleRequestError},
		{retrypolicy.Request, ND, NAD, no, no, no, retrypolicy.RuleRequestError},
		{retrypolicy.Request, ND, NA, no, no, no, retrypolicy.RuleNotApplicable},
		{retrypolicy.Request, MD, IDEM, no, no, no, retrypolicy.RuleRequestError},
		{retrypolicy.Request, MD, NAD, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.Request, MD, NA, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.Request, AN, IDEM, no, no, no, retrypolicy.RuleRequestError},
		{retrypolicy.Request, AN, NAD, no, no, no, retrypolicy.RuleRequestError},
		{retrypolicy.Request, AN, NA, no, no, no, retrypolicy.RuleNotApplicable},

		{retrypolicy.RPCApplication, ND, IDEM, no, no, no, retrypolicy.RuleRPCApplication},
		{retrypolicy.RPCApplication, ND, NAD, no, no, no, retrypolicy.RuleRPCApplication},
		{retrypolicy.RPCApplication, ND, NA, no, no, no, retrypolicy.RuleNotApplicable},
		{retrypolicy.RPCApplication, MD, IDEM, no, no, no, retrypolicy.RuleRPCApplication},
		{retrypolicy.RPCApplication, MD, NAD, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.RPCApplication, MD, NA, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.RPCApplication, AN, IDEM, no, no, no, retrypolicy.RuleRPCApplication},
		{retrypolicy.RPCApplication, AN, NAD, no, no, no, retrypolicy.RuleRPCApplication},
		{retrypolicy.RPCApplication, AN, NA, no, no, no, retrypolicy.RuleNotApplicable},

		{retrypolicy.MalformedResponse, ND, IDEM, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.MalformedResponse, ND, NAD, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.MalformedResponse, ND, NA, no, no, no, retrypolicy.RuleNotApplicable},
		{retrypolicy.MalformedResponse, MD, IDEM, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.MalformedResponse, MD, NAD, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.MalformedResponse, MD, NA, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.MalformedResponse, AN, IDEM, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.MalformedResponse, AN, NAD, no, no, no, retrypolicy.RuleAnsweredMayHaveActed},
		{retrypolicy.MalformedResponse, AN, NA, no, no, no, retrypolicy.RuleAnsweredMayHaveActed},

		{retrypolicy.InvalidResponse, ND, IDEM, no, no, no, retrypolicy.RuleInvalidResponse},
		{retrypolicy.InvalidResponse, ND, NAD, no, no, no, retrypolicy.RuleInvalidResponse},
		{retrypolicy.InvalidResponse, ND, NA, no, no, no, retrypolicy.RuleNotApplicable},
		{retrypolicy.InvalidResponse, MD, IDEM, no, no, no, retrypolicy.RuleInvalidResponse},
		{retrypolicy.InvalidResponse, MD, NAD, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.InvalidResponse, MD, NA, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.InvalidResponse, AN, IDEM, no, no, no, retrypolicy.RuleInvalidResponse},
		{retrypolicy.InvalidResponse, AN, NAD, no, no, no, retrypolicy.RuleAnsweredMayHaveActed},
		{retrypolicy.InvalidResponse, AN, NA, no, no, no, retrypolicy.RuleAnsweredMayHaveActed},

		{retrypolicy.Canceled, ND, IDEM, no, no, no, retrypolicy.RuleCanceled},
		{retrypolicy.Canceled, ND, NAD, no, no, no, retrypolicy.RuleCanceled},
		{retrypolicy.Canceled, ND, NA, no, no, no, retrypolicy.RuleCanceled},
		{retrypolicy.Canceled, MD, IDEM, no, no, no, retrypolicy.RuleCanceled},
		{retrypolicy.Canceled, MD, NAD, no, no, no, retrypolicy.RuleCanceled},
		{retrypolicy.Canceled, MD, NA, no, no, no, retrypolicy.RuleCanceled},
		{retrypolicy.Canceled, AN, IDEM, no, no, no, retrypolicy.RuleCanceled},
		{retrypolicy.Canceled, AN, NAD, no, no, no, retrypolicy.RuleCanceled},
		{retrypolicy.Canceled, AN, NA, no, no, no, retrypolicy.RuleCanceled},

		{retrypolicy.Refused, ND, IDEM, no, no, no, retrypolicy.RuleRefused},
		{retrypolicy.Refused, ND, NAD, no, no, no, retrypolicy.RuleRefused},
		{retrypolicy.Refused, ND, NA, no, no, no, retrypolicy.RuleNotApplicable},
		{retrypolicy.Refused, MD, IDEM, no, no, no, retrypolicy.RuleRefused},
		{retrypolicy.Refused, MD, NAD, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.Refused, MD, NA, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.Refused, AN, IDEM, no, no, no, retrypolicy.RuleRefused},
		{retrypolicy.Refused, AN, NAD, no, no, no, retrypolicy.RuleRefused},
		{retrypolicy.Refused, AN, NA, no, no, no, retrypolicy.RuleNotApplicable},

		{retrypolicy.RPCEndpoint, ND, IDEM, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.RPCEndpoint, ND, NAD, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.RPCEndpoint, ND, NA, no, no, no, retrypolicy.RuleNotApplicable},
		{retrypolicy.RPCEndpoint, MD, IDEM, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.RPCEndpoint, MD, NAD, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.RPCEndpoint, MD, NA, no, no, no, retrypolicy.RuleMaybeDispatched},
		{retrypolicy.RPCEndpoint, AN, IDEM, yes, yes, no, retrypolicy.RuleRetry},
		{retrypolicy.RPCEndpoint, AN, NAD, no, no, no, retrypolicy.RuleAnsweredMayHaveActed},
		{retrypolicy.RPCEndpoint, AN, NA, no, no, no, retrypolicy.RuleAnsweredMayHaveActed},
	}

	// The table must cover the cross product exactly once.
	if want := len(causes) * len(dispatchStates) * len(classes); len(rows) != want {
		t.Fatalf("table has %d rows, want %d", len(rows), want)
	}
	seen := map[[3]uint8]bool{}
	for _, r := range rows {
		k := [3]uint8{uint8(r.cause), uint8(r.dispatch), uint8(r.class)}
		if seen[k] {
			t.Fatalf("duplicate row %v/%v/%v", r.cause, r.dispatch, r.class)
		}
		seen[k] = true
	}

	s := defaults(exact)
	for _, r := range rows {
		t.Run(fmt.Sprintf("%v/%v/%v", r.cause, r.dispatch, r.class), func(t *testing.T) {
			a := Input{Number: 1, Outcome: retrypolicy.Outcome{Cause: r.cause, Dispatch: r.dispatch}, Class: r.class, TimeLeft: noDeadline}
			// The answers a 4xx or a JSON-RPC error stand for here are
			// proven refusals; TestMayHaveActed covers the others.
			switch r.cause {
			case retrypolicy.Request:
				a.HTTPStatus = 400
			case retrypolicy.RPCApplication:
				a.RPCCode = -32602
			case retrypolicy.RPCEndpoint:
				a.RPCCode = -32603 // may follow execution, as any of the endpoint's codes
			}
			d := Decide(s, a, Retries{})
			if d.Retry != r.retry || d.OtherEndpoint != r.other || d.Transparent != r.transparent || d.Rule != r.rule {
				t.Fatalf("got retry=%v other=%v transparent=%v rule=%v, want retry=%v other=%v transparent=%v rule=%v",
					d.Retry, d.OtherEndpoint, d.Transparent, d.Rule, r.retry, r.other, r.transparent, r.rule)
			}
			if d.Reason == "" {
				t.Fatal("empty reason")
			}
			if Retrying(d.Rule) != d.Retry {
				t.Fatalf("rule %v disagrees with retry=%v", d.Rule, d.Retry)
			}
			var wantDelay time.Duration
			switch {
			case !d.Retry, d.Transparent:
				wantDelay = 0
			default:
				wantDelay = (100 * time.Millisecond) // exact jitter: the first ceiling
			}
			if d.Delay != wantDelay {
				t.Fatalf("delay %v, want %v", d.Delay, wantDelay)
			}
			// Call.Next over a fresh policy agrees with Decide.
			c := New(s).Begin()
			defer c.End()
			if got := c.Next(a); got != d {
				t.Fatalf("Call.Next = %+v, Decide = %+v", got, d)
			}
		})
	}
}

func TestDecideUnknownInput(t *testing.T) {
	good := Input{Outcome: retrypolicy.Outcome{Cause: retrypolicy.Timeout, Dispatch: retrypolicy.Answered}, Class: retrypolicy.Idempotent, TimeLeft: noDeadline}
	cases := map[string]func(*Input){
		"zero cause":    func(a *Input) { a.Cause = 0 },
		"cause 13":      func(a *Input) { a.Cause = retrypolicy.RPCEndpoint + 1 },
		"zero dispatch": func(a *Input) { a.Dispatch = 0 },
		"dispatch 4":    func(a *Input) { a.Dispatch = retrypolicy.Answered + 1 },
		"zero class":    func(a *Input) { a.Class = 0 },
		"class 4":       func(a *Input) { a.Class = retrypolicy.NotApplicable + 1 },
	}
	if d := Decide(retrypolicy.DefaultSettings(), good, Retries{}); !d.Retry {
		t.Fatalf("control attempt not retried: %+v", d)
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			a := good
			mutate(&a)
			if d := Decide(retrypolicy.DefaultSettings(), a, Retries{}); d.Retry || d.Rule != retrypolicy.RuleUnknownInput {
				t.Fatalf("got %+v, want stop with %v", d, retrypolicy.RuleUnknownInput)
			}
		})
	}
}

func TestDecideMaxRetries(t *testing.T) {
	a := Input{Outcome: retrypolicy.Outcome{Cause: retrypolicy.TemporaryHTTP, Dispatch: retrypolicy.Answered}, Class: retrypolicy.Idempotent, TimeLeft: noDeadline}
	for _, tc := range []struct {
		maxRetries int
		granted    int // counted retries allowed
	}{{3, 3}, {1, 1}, {5, 5}, {0, 0}} {
		t.Run(fmt.Sprint(tc.maxRetries), func(t *testing.T) {
			s := defaults(exact)
			s.MaxRetries = tc.maxRetries
			for counted := 0; counted <= tc.granted; counted++ {
				d := Decide(s, a, Retries{Counted: counted})
				if want := counted < tc.granted; d.Retry != want {
					t.Fatalf("after %d counted retries: retry=%v, want %v (%s)", counted, d.Retry, want, d.Reason)
				}
				if !d.Retry && d.Rule != retrypolicy.RuleMaxRetries {
					t.Fatalf("stop rule %v, want %v", d.Rule, retrypolicy.RuleMaxRetries)
				}
			}
		})
	}
}

func TestDecideTransparent(t *testing.T) {
	never := Input{Outcome: retrypolicy.Outcome{Cause: retrypolicy.Connection, Dispatch: retrypolicy.NotDispatched}, Class: retrypolicy.NeverAfterDispatch, TimeLeft: noDeadline}
	s := defaults(exact)
	s.MaxRetries = 0

	t.Run("uncounted even with MaxRetries off", func(t *testing.T) {
		for n := range 8 { // the default TransparentRetries
			d := Decide(s, never, Retries{Transparent: n, Counted: 100})
			if !d.Retry || !d.Transparent || d.Delay != 0 {
				t.Fatalf("transparent retry %d: %+v", n, d)
			}
		}
	})
	t.Run("past the cap it counts", func(t *testing.T) {
		capped := Retries{Transparent: 8}
		if d := Decide(s, never, capped); d.Retry || d.Rule != retrypolicy.RuleMaxRetries {
			t.Fatalf("MaxRetries off: got %+v, want max-retries stop", d)
		}
		d := Decide(defaults(exact), never, capped)
		if !d.Retry || d.Transparent || d.Rule != retrypolicy.RuleRetry || d.Delay != (100*time.Millisecond) {
			t.Fatalf("default settings: got %+v, want a counted retry after %v", d, (100 * time.Millisecond))
		}
	})
	t.Run("bounded by the deadline", func(t *testing.T) {
		for _, left := range []time.Duration{0, -time.Second} {
			a := never
			a.TimeLeft = left
			if d := Decide(s, a, Retries{}); d.Retry || d.Rule != retrypolicy.RuleDeadline {
				t.Fatalf("time left %v: got %+v, want deadline stop", left, d)
			}
		}
		a := never
		a.TimeLeft = time.Nanosecond
		if d := Decide(s, a, Retries{}); !d.Retry {
			t.Fatalf("1ns left, no delay: got %+v, want retry", d)
		}
	})
	t.Run("only connection errors", func(t *testing.T) {
		a := never
		a.Cause = retrypolicy.Timeout
		if d := Decide(defaults(exact), a, Retries{}); d.Transparent || !d.Retry {
			t.Fatalf("timeout before dispatch: got %+v, want a counted retry", d)
		}
	})
}

func TestDecideDelay(t *testing.T) {
	def := retrypolicy.DefaultSettings()
	with := func(edit func(*retrypolicy.Settings)) retrypolicy.Settings {
		s := retrypolicy.DefaultSettings()
		edit(&s)
		return s
	}
	base := Input{Outcome: retrypolicy.Outcome{Cause: retrypolicy.RateLimited, Dispatch: retrypolicy.Answered}, Class: retrypolicy.Idempotent, TimeLeft: noDeadline}
	cases := []struct {
		name     string
		s        retrypolicy.Settings
		counted  int
		provider time.Duration
		left     time.Duration
		retry    bool
		delay    time.Duration
	}{
		{"backoff only", def, 0, 0, noDeadline, true, 100 * time.Millisecond},
		{"provider below backoff", def, 2, time.Millisecond, noDeadline, true, 400 * time.Millisecond},
		{"provider above backoff", def, 0, 5 * time.Second, noDeadline, true, 5 * time.Second},
		{"provider capped", def, 0, time.Hour, noDeadline, true, time.Minute},
		{"provider cap set", with(func(s *retrypolicy.Settings) { s.MaxProviderDelay = 3 * time.Second }), 0, time.Hour, noDeadline, true, 3 * time.Second},
		{"provider saturated", def, 0, noDeadline, noDeadline, true, time.Minute},
		{"provider ignored", with(func(s *retrypolicy.Settings) { s.MaxProviderDelay = 0 }), 0, time.Hour, noDeadline, true, 100 * time.Millisecond},
		{"negative provider", def, 0, -time.Hour, noDeadline, true, 100 * time.Millisecond},
		{"no backoff", with(func(s *retrypolicy.Settings) { s.InitialBackoff = 0 }), 2, 0, noDeadline, true, 0},
		{"delay just fits", def, 0, 0, 100*time.Millisecond + 1, true, 100 * time.Millisecond},
		{"delay equals time left", def, 0, 0, 100 * time.Millisecond, false, 0},
		{"provider past deadline", def, 0, 2 * time.Second, time.Second, false, 0},
		{"capped provider fits", with(func(s *retrypolicy.Settings) { s.MaxProviderDelay = time.Second }), 0, time.Hour, 2 * time.Second, true, time.Second},
		{"deadline passed", with(func(s *retrypolicy.Settings) { s.InitialBackoff = 0 }), 0, 0, 0, false, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.Jitter = exact
			a := base
			a.ProviderDelay, a.TimeLeft = tc.provider, tc.left
			d := Decide(tc.s, a, Retries{Counted: tc.counted})
			if d.Retry != tc.retry || d.Delay != tc.delay {
				t.Fatalf("got retry=%v delay=%v (%s), want retry=%v delay=%v", d.Retry, d.Delay, d.Reason, tc.retry, tc.delay)
			}
			if !tc.retry && d.Rule != retrypolicy.RuleDeadline {
				t.Fatalf("stop rule %v, want %v", d.Rule, retrypolicy.RuleDeadline)
			}
		})
	}
}

func TestDecideTransparentProviderDelay(t *testing.T) {
	a := Input{Outcome: retrypolicy.Outcome{Cause: retrypolicy.Connection, Dispatch: retrypolicy.NotDispatched, ProviderDelay: 2 * time.Second},
		Class: retrypolicy.Idempotent, TimeLeft: noDeadline}
	d := Decide(defaults(exact), a, Retries{})
	if !d.Transparent || d.Delay != 2*time.Second {
		t.Fatalf("got %+v, want a transparent retry after the provider's 2s", d)
	}
}

func TestStopReasonsDistinct(t *testing.T) {
	seen := map[string]retrypolicy.Rule{}
	for r := retrypolicy.RuleCanceled; r <= retrypolicy.RuleRefused; r++ {
		reason := stop(r).Reason
		if reason == "" {
			t.Fatalf("rule %v has no reason", r)
		}
		if other, dup := seen[reason]; dup {
			t.Fatalf("rules %v and %v share reason %q", r, other, reason)
		}
		seen[reason] = r
	}
}

// TestDecideProviderDelayBindsOnlyItsEndpoint: a Retry-After speaks for
// the endpoint that sent it. When the retry can fail over to an endpoint
// the call has not tried it goes at once; when it cannot, the provider's
// delay (capped) applies.
func TestDecideProviderDelayBindsOnlyItsEndpoint(t *testing.T) {
	a := Input{Outcome: retrypolicy.Outcome{Cause: retrypolicy.RateLimited, Dispatch: retrypolicy.Answered, ProviderDelay: 30 * time.Second},
		Class: retrypolicy.Idempotent, TimeLeft: noDeadline}
	for _, tc := range []struct {
		elsewhere bool
		want      time.Duration
	}{{true, 0}, {false, 30 * time.Second}} {
		a.ElsewhereAvailable = tc.elsewhere
		d := Decide(defaults(exact), a, Retries{})
		if !d.Retry || d.Delay != tc.want {
			t.Fatalf("elsewhere=%v: got %+v, want a retry after %v", tc.elsewhere, d, tc.want)
		}
	}
}

// TestDecideFailoverSkipsBackoff: backoff guards a revisit, not a
// failover; the failover still counts against MaxRetries.
func TestDecideFailoverSkipsBackoff(t *testing.T) {
	a := Input{Outcome: retrypolicy.Outcome{Cause: retrypolicy.TemporaryHTTP, Dispatch: retrypolicy.Answered}, Class: retrypolicy.Idempotent, TimeLeft: noDeadline}
	for _, tc := range []struct {
		elsewhere bool
		counted   int
		want      time.Duration
	}{{true, 0, 0}, {true, 2, 0}, {false, 0, 100 * time.Millisecond}, {false, 2, 400 * time.Millisecond}} {
		a.ElsewhereAvailable = tc.elsewhere
		d := Decide(defaults(exact), a, Retries{Counted: tc.counted})
		if !d.Retry || d.Transparent || d.Delay != tc.want {
			t.Fatalf("elsewhere=%v counted=%d: got %+v, want a counted retry after %v", tc.elsewhere, tc.counted, d, tc.want)
		}
	}
	a.ElsewhereAvailable = true
	if d := Decide(defaults(exact), a, Retries{Counted: retrypolicy.DefaultSettings().MaxRetries}); d.Retry {
		t.Fatalf("a failover past MaxRetries: %+v", d)
	}
}

// TestDecideOnce: a call that allows no counted retry (Input.Once, a
// fan-out copy) stops where the policy would retry, with RuleMaxRetries,
// and still retries an attempt that never left the client.
func TestDecideOnce(t *testing.T) {
	s := defaults(exact)
	a := Input{Outcome: retrypolicy.Outcome{Cause: retrypolicy.RateLimited, Dispatch: retrypolicy.Answered},
		Class: retrypolicy.NeverAfterDispatch, TimeLeft: noDeadline, Once: true}
	if d := Decide(s, a, Retries{}); d.Retry || d.Rule != retrypolicy.RuleMaxRetries {
		t.Errorf("a refused copy: %+v, want a stop by max-retries", d)
	}
	a.Outcome = retrypolicy.Outcome{Cause: retrypolicy.Connection, Dispatch: retrypolicy.NotDispatched}
	if d := Decide(s, a, Retries{}); !d.Retry || !d.Transparent {
		t.Errorf("a copy that never left the client: %+v, want a transparent retry", d)
	}
}
