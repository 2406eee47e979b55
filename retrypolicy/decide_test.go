package retrypolicy

import (
	"fmt"
	"testing"
	"time"
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
		cause                     Cause
		dispatch                  DispatchState
		class                     Class
		retry, other, transparent bool
		rule                      Rule
	}
	const (
		ND   = NotDispatched
		MD   = MaybeDispatched
		AN   = Answered
		IDEM = Idempotent
		NAD  = NeverAfterDispatch
		NA   = NotApplicable
	)
	rows := []row{
		{Connection, ND, IDEM, yes, yes, yes, RuleTransparentRetry},
		{Connection, ND, NAD, yes, yes, yes, RuleTransparentRetry},
		{Connection, ND, NA, no, no, no, RuleNotApplicable},
		{Connection, MD, IDEM, yes, yes, no, RuleRetry},
		{Connection, MD, NAD, no, no, no, RuleMaybeDispatched},
		{Connection, MD, NA, no, no, no, RuleMaybeDispatched},
		{Connection, AN, IDEM, yes, yes, no, RuleRetry},
		{Connection, AN, NAD, no, no, no, RuleAnsweredMayHaveActed},
		{Connection, AN, NA, no, no, no, RuleAnsweredMayHaveActed},

		{Timeout, ND, IDEM, yes, yes, no, RuleRetry},
		{Timeout, ND, NAD, yes, yes, no, RuleRetry},
		{Timeout, ND, NA, no, no, no, RuleNotApplicable},
		{Timeout, MD, IDEM, yes, yes, no, RuleRetry},
		{Timeout, MD, NAD, no, no, no, RuleMaybeDispatched},
		{Timeout, MD, NA, no, no, no, RuleMaybeDispatched},
		{Timeout, AN, IDEM, yes, yes, no, RuleRetry},
		{Timeout, AN, NAD, no, no, no, RuleAnsweredMayHaveActed},
		{Timeout, AN, NA, no, no, no, RuleAnsweredMayHaveActed},

		{RateLimited, ND, IDEM, yes, yes, no, RuleRetry},
		{RateLimited, ND, NAD, yes, yes, no, RuleRetry},
		{RateLimited, ND, NA, no, no, no, RuleNotApplicable},
		{RateLimited, MD, IDEM, yes, yes, no, RuleRetry},
		{RateLimited, MD, NAD, no, no, no, RuleMaybeDispatched},
		{RateLimited, MD, NA, no, no, no, RuleMaybeDispatched},
		{RateLimited, AN, IDEM, yes, yes, no, RuleRetry},
		{RateLimited, AN, NAD, yes, yes, no, RuleRetry},
		{RateLimited, AN, NA, no, no, no, RuleNotApplicable},

		{TemporaryHTTP, ND, IDEM, yes, yes, no, RuleRetry},
		{TemporaryHTTP, ND, NAD, yes, yes, no, RuleRetry},
		{TemporaryHTTP, ND, NA, no, no, no, RuleNotApplicable},
		{TemporaryHTTP, MD, IDEM, yes, yes, no, RuleRetry},
		{TemporaryHTTP, MD, NAD, no, no, no, RuleMaybeDispatched},
		{TemporaryHTTP, MD, NA, no, no, no, RuleMaybeDispatched},
		{TemporaryHTTP, AN, IDEM, yes, yes, no, RuleRetry},
		{TemporaryHTTP, AN, NAD, no, no, no, RuleAnsweredMayHaveActed},
		{TemporaryHTTP, AN, NA, no, no, no, RuleAnsweredMayHaveActed},

		{NodeBehind, ND, IDEM, yes, yes, no, RuleRetry},
		{NodeBehind, ND, NAD, yes, yes, no, RuleRetry},
		{NodeBehind, ND, NA, no, no, no, RuleNotApplicable},
		{NodeBehind, MD, IDEM, yes, yes, no, RuleRetry},
		{NodeBehind, MD, NAD, no, no, no, RuleMaybeDispatched},
		{NodeBehind, MD, NA, no, no, no, RuleMaybeDispatched},
		{NodeBehind, AN, IDEM, yes, yes, no, RuleRetry},
		{NodeBehind, AN, NAD, yes, yes, no, RuleRetry},
		{NodeBehind, AN, NA, no, no, no, RuleNotApplicable},

		{Request, ND, IDEM, no, no, no, RuleRequestError},
		{Request, ND, NAD, no, no, no, RuleRequestError},
		{Request, ND, NA, no, no, no, RuleNotApplicable},
		{Request, MD, IDEM, no, no, no, RuleRequestError},
		{Request, MD, NAD, no, no, no, RuleMaybeDispatched},
		{Request, MD, NA, no, no, no, RuleMaybeDispatched},
		{Request, AN, IDEM, no, no, no, RuleRequestError},
		{Request, AN, NAD, no, no, no, RuleRequestError},
		{Request, AN, NA, no, no, no, RuleNotApplicable},

		{RPCApplication, ND, IDEM, no, no, no, RuleRPCApplication},
		{RPCApplication, ND, NAD, no, no, no, RuleRPCApplication},
		{RPCApplication, ND, NA, no, no, no, RuleNotApplicable},
		{RPCApplication, MD, IDEM, no, no, no, RuleRPCApplication},
		{RPCApplication, MD, NAD, no, no, no, RuleMaybeDispatched},
		{RPCApplication, MD, NA, no, no, no, RuleMaybeDispatched},
		{RPCApplication, AN, IDEM, no, no, no, RuleRPCApplication},
		{RPCApplication, AN, NAD, no, no, no, RuleRPCApplication},
		{RPCApplication, AN, NA, no, no, no, RuleNotApplicable},

		{MalformedResponse, ND, IDEM, yes, yes, no, RuleRetry},
		{MalformedResponse, ND, NAD, yes, yes, no, RuleRetry},
		{MalformedResponse, ND, NA, no, no, no, RuleNotApplicable},
		{MalformedResponse, MD, IDEM, yes, yes, no, RuleRetry},
		{MalformedResponse, MD, NAD, no, no, no, RuleMaybeDispatched},
		{MalformedResponse, MD, NA, no, no, no, RuleMaybeDispatched},
		{MalformedResponse, AN, IDEM, yes, yes, no, RuleRetry},
		{MalformedResponse, AN, NAD, no, no, no, RuleAnsweredMayHaveActed},
		{MalformedResponse, AN, NA, no, no, no, RuleAnsweredMayHaveActed},

		{InvalidResponse, ND, IDEM, no, no, no, RuleInvalidResponse},
		{InvalidResponse, ND, NAD, no, no, no, RuleInvalidResponse},
		{InvalidResponse, ND, NA, no, no, no, RuleNotApplicable},
		{InvalidResponse, MD, IDEM, no, no, no, RuleInvalidResponse},
		{InvalidResponse, MD, NAD, no, no, no, RuleMaybeDispatched},
		{InvalidResponse, MD, NA, no, no, no, RuleMaybeDispatched},
		{InvalidResponse, AN, IDEM, no, no, no, RuleInvalidResponse},
		{InvalidResponse, AN, NAD, no, no, no, RuleAnsweredMayHaveActed},
		{InvalidResponse, AN, NA, no, no, no, RuleAnsweredMayHaveActed},

		{Canceled, ND, IDEM, no, no, no, RuleCanceled},
		{Canceled, ND, NAD, no, no, no, RuleCanceled},
		{Canceled, ND, NA, no, no, no, RuleCanceled},
		{Canceled, MD, IDEM, no, no, no, RuleCanceled},
		{Canceled, MD, NAD, no, no, no, RuleCanceled},
		{Canceled, MD, NA, no, no, no, RuleCanceled},
		{Canceled, AN, IDEM, no, no, no, RuleCanceled},
		{Canceled, AN, NAD, no, no, no, RuleCanceled},
		{Canceled, AN, NA, no, no, no, RuleCanceled},

		{Refused, ND, IDEM, no, no, no, RuleRefused},
		{Refused, ND, NAD, no, no, no, RuleRefused},
		{Refused, ND, NA, no, no, no, RuleNotApplicable},
		{Refused, MD, IDEM, no, no, no, RuleRefused},
		{Refused, MD, NAD, no, no, no, RuleMaybeDispatched},
		{Refused, MD, NA, no, no, no, RuleMaybeDispatched},
		{Refused, AN, IDEM, no, no, no, RuleRefused},
		{Refused, AN, NAD, no, no, no, RuleRefused},
		{Refused, AN, NA, no, no, no, RuleNotApplicable},

		{RPCEndpoint, ND, IDEM, yes, yes, no, RuleRetry},
		{RPCEndpoint, ND, NAD, yes, yes, no, RuleRetry},
		{RPCEndpoint, ND, NA, no, no, no, RuleNotApplicable},
		{RPCEndpoint, MD, IDEM, yes, yes, no, RuleRetry},
		{RPCEndpoint, MD, NAD, no, no, no, RuleMaybeDispatched},
		{RPCEndpoint, MD, NA, no, no, no, RuleMaybeDispatched},
		{RPCEndpoint, AN, IDEM, yes, yes, no, RuleRetry},
		{RPCEndpoint, AN, NAD, no, no, no, RuleAnsweredMayHaveActed},
		{RPCEndpoint, AN, NA, no, no, no, RuleAnsweredMayHaveActed},
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
			a := Attempt{Number: 1, Outcome: Outcome{Cause: r.cause, Dispatch: r.dispatch}, Class: r.class, TimeLeft: noDeadline}
			// The answers a 4xx or a JSON-RPC error stand for here are
			// proven refusals; TestMayHaveActed covers the others.
			switch r.cause {
			case Request:
				a.HTTPStatus = 400
			case RPCApplication:
				a.RPCCode = -32602
			case RPCEndpoint:
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
			if d.Rule.Retrying() != d.Retry {
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
	good := Attempt{Outcome: Outcome{Cause: Timeout, Dispatch: Answered}, Class: Idempotent, TimeLeft: noDeadline}
	cases := map[string]func(*Attempt){
		"zero cause":    func(a *Attempt) { a.Cause = 0 },
		"cause 13":      func(a *Attempt) { a.Cause = RPCEndpoint + 1 },
		"zero dispatch": func(a *Attempt) { a.Dispatch = 0 },
		"dispatch 4":    func(a *Attempt) { a.Dispatch = Answered + 1 },
		"zero class":    func(a *Attempt) { a.Class = 0 },
		"class 4":       func(a *Attempt) { a.Class = NotApplicable + 1 },
	}
	if d := Decide(DefaultSettings(), good, Retries{}); !d.Retry {
		t.Fatalf("control attempt not retried: %+v", d)
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			a := good
			mutate(&a)
			if d := Decide(DefaultSettings(), a, Retries{}); d.Retry || d.Rule != RuleUnknownInput {
				t.Fatalf("got %+v, want stop with %v", d, RuleUnknownInput)
			}
		})
	}
}

func TestDecideMaxRetries(t *testing.T) {
	a := Attempt{Outcome: Outcome{Cause: TemporaryHTTP, Dispatch: Answered}, Class: Idempotent, TimeLeft: noDeadline}
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
				if !d.Retry && d.Rule != RuleMaxRetries {
					t.Fatalf("stop rule %v, want %v", d.Rule, RuleMaxRetries)
				}
			}
		})
	}
}

func TestDecideTransparent(t *testing.T) {
	never := Attempt{Outcome: Outcome{Cause: Connection, Dispatch: NotDispatched}, Class: NeverAfterDispatch, TimeLeft: noDeadline}
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
		if d := Decide(s, never, capped); d.Retry || d.Rule != RuleMaxRetries {
			t.Fatalf("MaxRetries off: got %+v, want max-retries stop", d)
		}
		d := Decide(defaults(exact), never, capped)
		if !d.Retry || d.Transparent || d.Rule != RuleRetry || d.Delay != (100*time.Millisecond) {
			t.Fatalf("default settings: got %+v, want a counted retry after %v", d, (100 * time.Millisecond))
		}
	})
	t.Run("bounded by the deadline", func(t *testing.T) {
		for _, left := range []time.Duration{0, -time.Second} {
			a := never
			a.TimeLeft = left
			if d := Decide(s, a, Retries{}); d.Retry || d.Rule != RuleDeadline {
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
		a.Cause = Timeout
		if d := Decide(defaults(exact), a, Retries{}); d.Transparent || !d.Retry {
			t.Fatalf("timeout before dispatch: got %+v, want a counted retry", d)
		}
	})
}

func TestDecideDelay(t *testing.T) {
	def := DefaultSettings()
	with := func(edit func(*Settings)) Settings {
		s := DefaultSettings()
		edit(&s)
		return s
	}
	base := Attempt{Outcome: Outcome{Cause: RateLimited, Dispatch: Answered}, Class: Idempotent, TimeLeft: noDeadline}
	cases := []struct {
		name     string
		s        Settings
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
		{"provider cap set", with(func(s *Settings) { s.MaxProviderDelay = 3 * time.Second }), 0, time.Hour, noDeadline, true, 3 * time.Second},
		{"provider saturated", def, 0, noDeadline, noDeadline, true, time.Minute},
		{"provider ignored", with(func(s *Settings) { s.MaxProviderDelay = 0 }), 0, time.Hour, noDeadline, true, 100 * time.Millisecond},
		{"negative provider", def, 0, -time.Hour, noDeadline, true, 100 * time.Millisecond},
		{"no backoff", with(func(s *Settings) { s.InitialBackoff = 0 }), 2, 0, noDeadline, true, 0},
		{"delay just fits", def, 0, 0, 100*time.Millisecond + 1, true, 100 * time.Millisecond},
		{"delay equals time left", def, 0, 0, 100 * time.Millisecond, false, 0},
		{"provider past deadline", def, 0, 2 * time.Second, time.Second, false, 0},
		{"capped provider fits", with(func(s *Settings) { s.MaxProviderDelay = time.Second }), 0, time.Hour, 2 * time.Second, true, time.Second},
		{"deadline passed", with(func(s *Settings) { s.InitialBackoff = 0 }), 0, 0, 0, false, 0},
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
			if !tc.retry && d.Rule != RuleDeadline {
				t.Fatalf("stop rule %v, want %v", d.Rule, RuleDeadline)
			}
		})
	}
}

func TestDecideTransparentProviderDelay(t *testing.T) {
	a := Attempt{Outcome: Outcome{Cause: Connection, Dispatch: NotDispatched, ProviderDelay: 2 * time.Second},
		Class: Idempotent, TimeLeft: noDeadline}
	d := Decide(defaults(exact), a, Retries{})
	if !d.Transparent || d.Delay != 2*time.Second {
		t.Fatalf("got %+v, want a transparent retry after the provider's 2s", d)
	}
}

func TestStopReasonsDistinct(t *testing.T) {
	seen := map[string]Rule{}
	for r := RuleCanceled; r <= RuleRefused; r++ {
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
	a := Attempt{Outcome: Outcome{Cause: RateLimited, Dispatch: Answered, ProviderDelay: 30 * time.Second},
		Class: Idempotent, TimeLeft: noDeadline}
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
	a := Attempt{Outcome: Outcome{Cause: TemporaryHTTP, Dispatch: Answered}, Class: Idempotent, TimeLeft: noDeadline}
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
	if d := Decide(defaults(exact), a, Retries{Counted: DefaultSettings().MaxRetries}); d.Retry {
		t.Fatalf("a failover past MaxRetries: %+v", d)
	}
}
