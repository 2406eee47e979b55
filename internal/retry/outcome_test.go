package retry

import (
	"fmt"
	"testing"

	"github.com/solroute/solroute/retrypolicy"
)

// TestStatusCause pins the HTTP status table: every code from 0 to 999.
func TestStatusCause(t *testing.T) {
	refused := map[int]bool{301: true, 302: true, 307: true, 308: true, 401: true, 402: true,
		403: true, 404: true, 405: true, 407: true, 421: true, 425: true}
	for code := 0; code < 1000; code++ {
		var want retrypolicy.Cause
		switch {
		case code >= 200 && code <= 299:
			want = 0
		case code == 429:
			want = retrypolicy.RateLimited
		case code == 408:
			want = retrypolicy.Timeout
		case code >= 500 && code <= 599:
			want = retrypolicy.TemporaryHTTP
		case refused[code]:
			want = retrypolicy.Refused
		default:
			want = retrypolicy.Request
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
		want := retrypolicy.RPCApplication
		switch {
		case nodeBehind[code]:
			want = retrypolicy.NodeBehind
		case callers[code]:
		case code == -32603, code >= -32099 && code <= -32000:
			want = retrypolicy.RPCEndpoint // internal error, and every other server error
		}
		if got := RPCCodeCause(code); got != want {
			t.Errorf("RPCCodeCause(%d) = %v, want %v", code, got, want)
		}
	}
	for code, want := range map[int]retrypolicy.Cause{429: retrypolicy.RateLimited, 0: retrypolicy.RPCApplication, 1: retrypolicy.RPCApplication,
		-1: retrypolicy.RPCApplication, 7429: retrypolicy.RPCApplication, -32429: retrypolicy.RPCApplication, -40000: retrypolicy.RPCApplication} {
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
		o := retrypolicy.Outcome{Cause: RPCCodeCause(code), Dispatch: retrypolicy.Answered, HTTPStatus: 200, RPCCode: code}
		if got, want := o.MayHaveActed(), !before[code]; got != want {
			t.Errorf("JSON-RPC %d (%v): MayHaveActed = %v, want %v", code, o.Cause, got, want)
		}
		sent := Input{Outcome: o, Class: retrypolicy.NeverAfterDispatch}
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
		o := retrypolicy.Outcome{Cause: cause, Dispatch: retrypolicy.Answered, HTTPStatus: code}
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
		o := retrypolicy.Outcome{Cause: RPCCodeCause(code), Dispatch: retrypolicy.Answered, HTTPStatus: 200, RPCCode: code}
		if got, want := o.MayHaveActed(), !codeNotActed[code]; got != want {
			t.Errorf("JSON-RPC %d: MayHaveActed = %v, want %v", code, got, want)
		}
	}
	// Everything else a 200 can carry may follow processing; before
	// dispatch nothing can; after a maybe, everything can.
	for _, c := range append([]retrypolicy.Cause{0}, causes[:]...) {
		for _, tc := range []struct {
			d    retrypolicy.DispatchState
			want bool
		}{{retrypolicy.NotDispatched, false}, {retrypolicy.MaybeDispatched, true}, {0, true}} {
			if got := (retrypolicy.Outcome{Cause: c, Dispatch: tc.d}).MayHaveActed(); got != tc.want {
				t.Errorf("%v/%v: MayHaveActed = %v, want %v", c, tc.d, got, tc.want)
			}
		}
	}
	for _, c := range []retrypolicy.Cause{0, retrypolicy.Connection, retrypolicy.Timeout, retrypolicy.MalformedResponse, retrypolicy.InvalidResponse, retrypolicy.Canceled} {
		if o := (retrypolicy.Outcome{Cause: c, Dispatch: retrypolicy.Answered, HTTPStatus: 200}); !o.MayHaveActed() {
			t.Errorf("%v after HTTP 200: MayHaveActed = false, want true", c)
		}
	}
}

func TestAmbiguous(t *testing.T) {
	acted := retrypolicy.Outcome{Cause: retrypolicy.TemporaryHTTP, Dispatch: retrypolicy.Answered, HTTPStatus: 524, Fault: retrypolicy.EndpointFault}
	refused := retrypolicy.Outcome{Cause: retrypolicy.RateLimited, Dispatch: retrypolicy.Answered, HTTPStatus: 429, Fault: retrypolicy.EndpointFault}
	for _, tc := range []struct {
		o     retrypolicy.Outcome
		class retrypolicy.Class
		want  bool
	}{
		{acted, retrypolicy.NeverAfterDispatch, true},
		{acted, retrypolicy.NotApplicable, true},
		{acted, 0, true}, // an unknown class is not Idempotent
		{acted, retrypolicy.Idempotent, false},
		{refused, retrypolicy.NeverAfterDispatch, false},
		{retrypolicy.Outcome{Dispatch: retrypolicy.Answered, HTTPStatus: 200}, retrypolicy.NeverAfterDispatch, false}, // a success
		{retrypolicy.Outcome{Cause: retrypolicy.InvalidResponse, Dispatch: retrypolicy.Answered, HTTPStatus: 200, Fault: retrypolicy.RequestFault}, retrypolicy.NeverAfterDispatch, true},
	} {
		t.Run(fmt.Sprintf("%v/%v/%v", tc.o.Cause, tc.o.HTTPStatus, tc.class), func(t *testing.T) {
			if got := (Input{Outcome: tc.o, Class: tc.class}).Ambiguous(); got != tc.want {
				t.Fatalf("Ambiguous = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestOutcomeQuestions(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		o                         retrypolicy.Outcome
		endpoint, doubtful, settl bool
		pause                     bool
	}{
		{"success", retrypolicy.Outcome{Dispatch: retrypolicy.Answered, HTTPStatus: 200}, false, false, true, false},
		{"reset after writing", retrypolicy.Outcome{Cause: retrypolicy.Connection, Dispatch: retrypolicy.MaybeDispatched, Fault: retrypolicy.EndpointFault}, true, true, false, false},
		{"refused connection", retrypolicy.Outcome{Cause: retrypolicy.Connection, Dispatch: retrypolicy.NotDispatched, Fault: retrypolicy.EndpointFault}, true, false, false, false},
		{"429", retrypolicy.Outcome{Cause: retrypolicy.RateLimited, Dispatch: retrypolicy.Answered, HTTPStatus: 429, Fault: retrypolicy.EndpointFault}, true, false, false, true},
		{"503 retry-after", retrypolicy.Outcome{Cause: retrypolicy.TemporaryHTTP, Dispatch: retrypolicy.Answered, HTTPStatus: 503, ProviderDelay: 1, Fault: retrypolicy.EndpointFault}, true, true, false, true},
		{"524", retrypolicy.Outcome{Cause: retrypolicy.TemporaryHTTP, Dispatch: retrypolicy.Answered, HTTPStatus: 524, Fault: retrypolicy.EndpointFault}, true, true, false, false},
		{"caller canceled after writing", retrypolicy.Outcome{Cause: retrypolicy.Canceled, Dispatch: retrypolicy.MaybeDispatched, Fault: retrypolicy.CallerFault}, false, false, false, false},
		{"over our size limit", retrypolicy.Outcome{Cause: retrypolicy.MalformedResponse, Dispatch: retrypolicy.Answered, HTTPStatus: 200, Fault: retrypolicy.LocalFault}, false, false, false, false},
		{"rpc error", retrypolicy.Outcome{Cause: retrypolicy.RPCApplication, Dispatch: retrypolicy.Answered, HTTPStatus: 200, RPCCode: -32602, Fault: retrypolicy.RequestFault}, false, false, true, false},
		{"endpoint's rpc error", retrypolicy.Outcome{Cause: retrypolicy.RPCEndpoint, Dispatch: retrypolicy.Answered, HTTPStatus: 200, RPCCode: -32603, Fault: retrypolicy.EndpointFault}, true, true, false, false},
		{"history not on this node", retrypolicy.Outcome{Cause: retrypolicy.RPCEndpoint, Dispatch: retrypolicy.Answered, HTTPStatus: 200, RPCCode: -32011, Fault: retrypolicy.EndpointFault}, true, false, false, false},
		{"a provider's server error", retrypolicy.Outcome{Cause: retrypolicy.RPCEndpoint, Dispatch: retrypolicy.Answered, HTTPStatus: 200, RPCCode: -32042, Fault: retrypolicy.EndpointFault}, true, true, false, false},
		{"401", retrypolicy.Outcome{Cause: retrypolicy.Refused, Dispatch: retrypolicy.Answered, HTTPStatus: 401, Fault: retrypolicy.EndpointFault}, true, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, pause := Pause(tc.o)
			if Endpoint(tc.o) != tc.endpoint || Doubtful(tc.o) != tc.doubtful || Settles(tc.o) != tc.settl || pause != tc.pause {
				t.Fatalf("endpoint=%v doubtful=%v settles=%v pause=%v, want %v %v %v %v", Endpoint(tc.o), Doubtful(tc.o),
					Settles(tc.o), pause, tc.endpoint, tc.doubtful, tc.settl, tc.pause)
			}
		})
	}
}
