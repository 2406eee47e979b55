package retrypolicy

import (
	"fmt"
	"testing"
)

// TestStatusCause pins the HTTP status table: every code from 0 to 999.
func TestStatusCause(t *testing.T) {
	refused := map[int]bool{301: true, 302: true, 307: true, 308: true, 401: true, 402: true,
		403: true, 404: true, 405: true, 407: true, 421: true, 425: true}
	for code := 0; code < 1000; code++ {
		var want Cause
		switch {
		case code >= 200 && code <= 299:
			want = 0
		case code == 429:
			want = RateLimited
		case code == 408:
			want = Timeout
		case code >= 500 && code <= 599:
			want = TemporaryHTTP
		case refused[code]:
			want = Refused
		default:
			want = Request
		}
		if got := StatusCause(code); got != want {
			t.Errorf("StatusCause(%d) = %v, want %v", code, got, want)
		}
	}
}

// TestRPCCodeCause pins the JSON-RPC error table (docs/errors.md) over
// every code from -33000 to -31000 and a few outside: the lists are
// written out here, apart from the code.
func TestRPCCodeCause(t *testing.T) {
	nodeBehind := map[int]bool{-32004: true, -32005: true, -32014: true, -32016: true}
	// agave's codes and the JSON-RPC 2.0 codes that are the caller's.
	callers := map[int]bool{-32700: true, -32600: true, -32601: true, -32602: true,
		-32002: true, -32003: true, -32006: true, -32007: true, -32009: true,
		-32013: true, -32015: true, -32017: true}
	for code := -33000; code <= -31000; code++ {
		want := RPCApplication
		switch {
		case nodeBehind[code]:
			want = NodeBehind
		case callers[code]:
		case code == -32603, code >= -32099 && code <= -32000:
			want = RPCEndpoint // internal error, and every other server error
		}
		if got := RPCCodeCause(code); got != want {
			t.Errorf("RPCCodeCause(%d) = %v, want %v", code, got, want)
		}
	}
	for code, want := range map[int]Cause{429: RateLimited, 0: RPCApplication, 1: RPCApplication,
		-1: RPCApplication, 7429: RPCApplication, -32429: RPCApplication, -40000: RPCApplication} {
		if got := RPCCodeCause(code); got != want {
			t.Errorf("RPCCodeCause(%d) = %v, want %v", code, got, want)
		}
	}
}

// TestEndpointErrorsKeepTheSendRule: which JSON-RPC errors prove that a
// send was not acted on is the rule of plan 007, untouched by whose
// error it is: a rate limit, a node-state refusal, or one of the codes
// agave returns before it executes or forwards. Every code from -33000 to
// -31000 is checked against that rule, written out here as it stood
// before the endpoint's errors had a cause of their own.
func TestEndpointErrorsKeepTheSendRule(t *testing.T) {
	before := map[int]bool{-32004: true, -32005: true, -32014: true, -32016: true, // refusals
		-32700: true, -32600: true, -32601: true, -32602: true, // JSON-RPC 2.0: the call never ran
		-32002: true, -32003: true, -32006: true, -32013: true, -32015: true} // rejected before execution
	for code := -33000; code <= -31000; code++ {
		o := Outcome{Cause: RPCCodeCause(code), Dispatch: Answered, HTTPStatus: 200, RPCCode: code}
		if got, want := o.MayHaveActed(), !before[code]; got != want {
			t.Errorf("JSON-RPC %d (%v): MayHaveActed = %v, want %v", code, o.Cause, got, want)
		}
		sent := Attempt{Outcome: o, Class: NeverAfterDispatch}
		if sent.Ambiguous() != o.MayHaveActed() {
			t.Errorf("JSON-RPC %d: a send's ambiguity disagrees with MayHaveActed", code)
		}
	}
}

// TestMayHaveActed drives every HTTP status and a set of JSON-RPC codes
// through the classification a transport makes, and checks which
// answers prove that no server acted. The lists are written out here,
// apart from the code, so that a change to either side breaks the test.
func TestMayHaveActed(t *testing.T) {
	// Statuses that prove the request was not processed.
	notActed := map[int]bool{
		301: true, 302: true, 307: true, 308: true, // redirected elsewhere
		400: true, 401: true, 402: true, 403: true, 404: true, 405: true, 407: true, 411: true,
		413: true, 414: true, 415: true, 421: true, 425: true, 429: true, 431: true, 451: true,
	}
	for code := 100; code < 1000; code++ {
		cause := StatusCause(code)
		if cause == 0 {
			continue // 2xx: the body decides (below)
		}
		o := Outcome{Cause: cause, Dispatch: Answered, HTTPStatus: code}
		if got, want := o.MayHaveActed(), !notActed[code]; got != want {
			t.Errorf("HTTP %d (%v): MayHaveActed = %v, want %v", code, cause, got, want)
		}
	}
	// Answered with HTTP 200 and a JSON-RPC error.
	codeNotActed := map[int]bool{429: true, -32004: true, -32005: true, -32014: true, -32016: true,
		-32700: true, -32600: true, -32601: true, -32602: true,
		-32002: true, -32003: true, -32006: true, -32013: true, -32015: true}
	for _, code := range []int{429, -32001, -32002, -32003, -32004, -32005, -32006, -32007, -32008,
		-32009, -32010, -32011, -32012, -32013, -32014, -32015, -32016, -32017, -32019,
		-32600, -32601, -32602, -32603, -32700, -32000, -32099, 1, 7429} {
		o := Outcome{Cause: RPCCodeCause(code), Dispatch: Answered, HTTPStatus: 200, RPCCode: code}
		if got, want := o.MayHaveActed(), !codeNotActed[code]; got != want {
			t.Errorf("JSON-RPC %d: MayHaveActed = %v, want %v", code, got, want)
		}
	}
	// Everything else a 200 can carry may follow processing; before
	// dispatch nothing can; after a maybe, everything can.
	for _, c := range append([]Cause{0}, causes[:]...) {
		for _, tc := range []struct {
			d    DispatchState
			want bool
		}{{NotDispatched, false}, {MaybeDispatched, true}, {0, true}} {
			if got := (Outcome{Cause: c, Dispatch: tc.d}).MayHaveActed(); got != tc.want {
				t.Errorf("%v/%v: MayHaveActed = %v, want %v", c, tc.d, got, tc.want)
			}
		}
	}
	for _, c := range []Cause{0, Connection, Timeout, MalformedResponse, InvalidResponse, Canceled} {
		if o := (Outcome{Cause: c, Dispatch: Answered, HTTPStatus: 200}); !o.MayHaveActed() {
			t.Errorf("%v after HTTP 200: MayHaveActed = false, want true", c)
		}
	}
}

func TestAmbiguous(t *testing.T) {
	acted := Outcome{Cause: TemporaryHTTP, Dispatch: Answered, HTTPStatus: 524, Fault: EndpointFault}
	refused := Outcome{Cause: RateLimited, Dispatch: Answered, HTTPStatus: 429, Fault: EndpointFault}
	for _, tc := range []struct {
		o     Outcome
		class Class
		want  bool
	}{
		{acted, NeverAfterDispatch, true},
		{acted, NotApplicable, true},
		{acted, 0, true}, // an unknown class is not Idempotent
		{acted, Idempotent, false},
		{refused, NeverAfterDispatch, false},
		{Outcome{Dispatch: Answered, HTTPStatus: 200}, NeverAfterDispatch, false}, // a success
		{Outcome{Cause: InvalidResponse, Dispatch: Answered, HTTPStatus: 200, Fault: RequestFault}, NeverAfterDispatch, true},
	} {
		t.Run(fmt.Sprintf("%v/%v/%v", tc.o.Cause, tc.o.HTTPStatus, tc.class), func(t *testing.T) {
			if got := (Attempt{Outcome: tc.o, Class: tc.class}).Ambiguous(); got != tc.want {
				t.Fatalf("Ambiguous = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestOutcomeQuestions(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		o                         Outcome
		endpoint, doubtful, settl bool
		pause                     bool
	}{
		{"success", Outcome{Dispatch: Answered, HTTPStatus: 200}, false, false, true, false},
		{"reset after writing", Outcome{Cause: Connection, Dispatch: MaybeDispatched, Fault: EndpointFault}, true, true, false, false},
		{"refused connection", Outcome{Cause: Connection, Dispatch: NotDispatched, Fault: EndpointFault}, true, false, false, false},
		{"429", Outcome{Cause: RateLimited, Dispatch: Answered, HTTPStatus: 429, Fault: EndpointFault}, true, false, false, true},
		{"503 retry-after", Outcome{Cause: TemporaryHTTP, Dispatch: Answered, HTTPStatus: 503, ProviderDelay: 1, Fault: EndpointFault}, true, true, false, true},
		{"524", Outcome{Cause: TemporaryHTTP, Dispatch: Answered, HTTPStatus: 524, Fault: EndpointFault}, true, true, false, false},
		{"caller canceled after writing", Outcome{Cause: Canceled, Dispatch: MaybeDispatched, Fault: CallerFault}, false, false, false, false},
		{"over our size limit", Outcome{Cause: MalformedResponse, Dispatch: Answered, HTTPStatus: 200, Fault: LocalFault}, false, false, false, false},
		{"rpc error", Outcome{Cause: RPCApplication, Dispatch: Answered, HTTPStatus: 200, RPCCode: -32602, Fault: RequestFault}, false, false, true, false},
		{"endpoint's rpc error", Outcome{Cause: RPCEndpoint, Dispatch: Answered, HTTPStatus: 200, RPCCode: -32603, Fault: EndpointFault}, true, true, false, false},
		{"history not on this node", Outcome{Cause: RPCEndpoint, Dispatch: Answered, HTTPStatus: 200, RPCCode: -32011, Fault: EndpointFault}, true, false, false, false},
		{"a provider's server error", Outcome{Cause: RPCEndpoint, Dispatch: Answered, HTTPStatus: 200, RPCCode: -32042, Fault: EndpointFault}, true, true, false, false},
		{"401", Outcome{Cause: Refused, Dispatch: Answered, HTTPStatus: 401, Fault: EndpointFault}, true, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, pause := tc.o.Pause()
			if tc.o.Endpoint() != tc.endpoint || tc.o.Doubtful() != tc.doubtful || tc.o.Settles() != tc.settl || pause != tc.pause {
				t.Fatalf("endpoint=%v doubtful=%v settles=%v pause=%v, want %v %v %v %v", tc.o.Endpoint(), tc.o.Doubtful(),
					tc.o.Settles(), pause, tc.endpoint, tc.doubtful, tc.settl, tc.pause)
			}
		})
	}
}
