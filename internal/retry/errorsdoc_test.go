package retry

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/solroute/solroute/retrypolicy"
)

// TestErrorsDocIsTheTable reads the table of docs/errors.md and checks
// every row against the code: whose error it is (RPCCodeCause), what a
// read does and what a send does (Decide over the outcome the transport
// builds for that answer), and that the table lists every code the code
// names.
func TestErrorsDocIsTheTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	causes := map[string]retrypolicy.Cause{"caller's": retrypolicy.RPCApplication, "endpoint's": retrypolicy.RPCEndpoint,
		"behind": retrypolicy.NodeBehind, "rate limited": retrypolicy.RateLimited}
	listed := map[int]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 7 {
			continue
		}
		code, err := strconv.Atoi(strings.TrimSpace(cells[1]))
		if err != nil {
			continue // the header, or a range
		}
		name, whose := strings.TrimSpace(cells[2]), strings.TrimSpace(cells[3])
		read, send := strings.TrimSpace(cells[4]), strings.TrimSpace(cells[5])
		listed[code] = true
		if got, want := RPCCodeCause(code), causes[whose]; got != want || want == 0 {
			t.Errorf("docs: %d is %q; RPCCodeCause says %v", code, whose, got)
		}
		if r, ok := rpcCodeOf(code); !ok || r.name != name {
			t.Errorf("docs: %d is named %q; the table in code %q", code, name, r.name)
		}
		read, avoided := strings.CutSuffix(read, ", avoided")
		if avoided != LacksHistory(code) {
			t.Errorf("docs: a read answered %d avoids the endpoint: %v; LacksHistory: %v", code, avoided, LacksHistory(code))
		}
		checkDocActions(t, code, read, send)
	}
	for _, r := range rpcCodes {
		if !listed[r.code] {
			t.Errorf("docs/errors.md has no row for %d (%s)", r.code, r.name)
		}
	}
	for _, code := range []int{-32000, -32042, -32099} { // "other -32099 to -32000"
		checkDocActions(t, code, "fails over", "may have acted")
	}
	checkDocActions(t, 7, "returned", "may have acted") // "any other code"
}

// checkDocActions checks what the docs say a read and a send answered
// with code do against Decide, for an answered attempt with time left and
// another endpoint to go to.
func checkDocActions(t *testing.T, code int, read, send string) {
	t.Helper()
	o := retrypolicy.Outcome{Cause: RPCCodeCause(code), Dispatch: retrypolicy.Answered, HTTPStatus: 200, RPCCode: code}
	decide := func(c retrypolicy.Class) retrypolicy.Decision {
		return Decide(retrypolicy.DefaultSettings(), Input{Number: 1, Outcome: o, Class: c,
			ElsewhereAvailable: true, TimeLeft: noDeadline}, Retries{})
	}
	r := decide(retrypolicy.Idempotent)
	if got := map[bool]string{true: "fails over", false: "returned"}[r.Retry]; got != read {
		t.Errorf("docs: a read answered %d %s; Decide: %+v", code, read, r)
	}
	if r.Retry && r.Delay != 0 {
		t.Errorf("a read answered %d waits %v before failing over", code, r.Delay)
	}
	s := decide(retrypolicy.NeverAfterDispatch)
	got := "may have acted"
	switch {
	case o.MayHaveActed():
		if s.Rule != retrypolicy.RuleAnsweredMayHaveActed {
			t.Errorf("a send answered %d that may have acted: %+v", code, s)
		}
	case s.Retry:
		got = "not acted, elsewhere"
	default:
		got = "not acted, final"
	}
	if got != send {
		t.Errorf("docs: a send answered %d: %s; the code: %s", code, send, got)
	}
}
