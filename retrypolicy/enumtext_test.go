package retrypolicy

import (
	"encoding"
	"encoding/json"
	"strings"
	"testing"
)

func TestEnumNames(t *testing.T) {
	names := map[Cause]string{0: "none", Connection: "connection", Timeout: "timeout", RateLimited: "rate-limited",
		TemporaryHTTP: "temporary-http", NodeBehind: "node-behind", Request: "request",
		RPCApplication: "rpc-application", MalformedResponse: "malformed-response",
		InvalidResponse: "invalid-response", Canceled: "canceled", Refused: "refused",
		RPCEndpoint: "rpc-endpoint", 42: "cause(42)"}
	for c, want := range names {
		if got := c.String(); got != want {
			t.Errorf("Cause(%d).String() = %q, want %q", c, got, want)
		}
	}
	if len(names) != len(causes)+2 {
		t.Fatalf("causes has %d entries; the name table above covers %d", len(causes), len(names)-2)
	}
	states := map[DispatchState]string{0: "unknown", NotDispatched: "not-dispatched",
		MaybeDispatched: "maybe-dispatched", Answered: "answered", 9: "dispatch(9)"}
	for d, want := range states {
		if got := d.String(); got != want {
			t.Errorf("DispatchState(%d).String() = %q, want %q", d, got, want)
		}
	}
	classes := map[Class]string{0: "unknown", Idempotent: "idempotent",
		NeverAfterDispatch: "never-after-dispatch", NotApplicable: "not-applicable", 7: "class(7)"}
	for c, want := range classes {
		if got := c.String(); got != want {
			t.Errorf("Class(%d).String() = %q, want %q", c, got, want)
		}
	}
	faults := map[Fault]string{0: "none", EndpointFault: "endpoint", RequestFault: "request",
		CallerFault: "caller", LocalFault: "local", 8: "fault(8)"}
	for f, want := range faults {
		if got := f.String(); got != want {
			t.Errorf("Fault(%d).String() = %q, want %q", f, got, want)
		}
	}
	if got := RuleMaxRetries.String(); got != "max-retries" {
		t.Errorf("RuleMaxRetries.String() = %q", got)
	}
}

// textRoundTrip marshals every value, parses it back and compares.
func textRoundTrip[T comparable, P interface {
	*T
	encoding.TextUnmarshaler
}](t *testing.T, values []T) {
	t.Helper()
	for _, v := range values {
		text, err := any(v).(encoding.TextMarshaler).MarshalText()
		if err != nil {
			t.Fatalf("%v: MarshalText: %v", v, err)
		}
		var back T
		if err := P(&back).UnmarshalText(text); err != nil {
			t.Fatalf("%v: UnmarshalText(%q): %v", v, text, err)
		}
		if back != v {
			t.Fatalf("%q came back as %v, want %v", text, back, v)
		}
	}
	var zero T
	err := P(&zero).UnmarshalText([]byte("no-such-name"))
	if err == nil || !strings.HasPrefix(err.Error(), "retrypolicy: ") {
		t.Fatalf("UnmarshalText(garbage) error = %v, want a retrypolicy: error", err)
	}
}

func TestEnumTextRoundTrip(t *testing.T) {
	textRoundTrip(t, append([]Class{0}, classes[:]...))
}

// distinctText checks that MarshalText names every value differently, so
// that a record's text identifies the value (Cause, DispatchState, Fault
// and Rule are written by the library, never read back, and carry no
// UnmarshalText).
func distinctText[T comparable](t *testing.T, values []T) {
	t.Helper()
	seen := map[string]T{}
	for _, v := range values {
		text, err := any(v).(encoding.TextMarshaler).MarshalText()
		if err != nil {
			t.Fatalf("%v: MarshalText: %v", v, err)
		}
		if other, dup := seen[string(text)]; dup {
			t.Fatalf("%v and %v both write %q", other, v, text)
		}
		seen[string(text)] = v
	}
}

func TestEnumTextDistinct(t *testing.T) {
	distinctText(t, append([]Cause{0}, causes[:]...))
	distinctText(t, append([]DispatchState{0}, dispatchStates[:]...))
	distinctText(t, []Fault{0, EndpointFault, RequestFault, CallerFault, LocalFault})
	var rules []Rule
	for r := Rule(0); r <= RuleNotYet; r++ {
		rules = append(rules, r)
	}
	distinctText(t, rules)
}

func TestEnumJSON(t *testing.T) {
	v := struct {
		Cause    Cause
		Dispatch DispatchState
		Class    Class
		Decision Decision
		Unknown  Cause
	}{RateLimited, Answered, NeverAfterDispatch, Decision{Rule: RuleBudget, Reason: "retry budget spent: too many calls are retrying"}, 200}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"Cause":"rate-limited","Dispatch":"answered","Class":"never-after-dispatch",` +
		`"Decision":{"Retry":false,"Delay":0,"OtherEndpoint":false,"Transparent":false,"NotYet":false,` +
		`"Reason":"retry budget spent: too many calls are retrying","Rule":"budget"},"Unknown":"cause(200)"}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}
