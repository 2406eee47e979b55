package slots_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/solroute/solroute/internal/slots"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/retrypolicy"
)

// rpcResponseMethod is one line of testdata/rpcresponse.txt.
type rpcResponseMethod struct {
	name   string
	config int // -1: none
	notes  map[string]bool
}

// rpcResponseMethods reads testdata/rpcresponse.txt: the methods agave
// answers with an RpcResponse, as its rpc.rs declares them.
func rpcResponseMethods(t *testing.T) []rpcResponseMethod {
	t.Helper()
	b, err := os.ReadFile("testdata/rpcresponse.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []rpcResponseMethod
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		m := rpcResponseMethod{name: f[0], config: -1, notes: map[string]bool{}}
		if f[1] != "-" {
			if m.config, err = strconv.Atoi(f[1]); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
		}
		for _, n := range f[2:] {
			m.notes[n] = true
		}
		out = append(out, m)
	}
	if len(out) < 20 {
		t.Fatalf("the list has %d methods", len(out))
	}
	return out
}

// TestSlotsCoverEveryRpcResponse: every method agave answers with an
// RpcResponse is a known read whose answer's context slot is tracked, at
// the commitment its own config sets, and none is tracked as an
// RpcResponse that agave does not answer so.
func TestSlotsCoverEveryRpcResponse(t *testing.T) {
	r := methods.Default()
	listed := map[string]bool{}
	for _, m := range rpcResponseMethods(t) {
		listed[m.name] = true
		s := slots.TraitsOf(m.name)
		if e, ok := r.Lookup(m.name); !ok || e.Class != retrypolicy.Idempotent {
			t.Errorf("%s: not a known read (%+v, %v)", m.name, e, ok)
		}
		if s.Context == m.notes["optional"] || !s.Tracked() {
			t.Errorf("%s: %+v: want the context tracked (with withContext only: %v)", m.name, s, m.notes["optional"])
		}
		if s.Config != m.config && !s.Pinned {
			t.Errorf("%s: config at %d, want %d", m.name, s.Config, m.config)
		}
		if s.MinContextSlot != m.notes["min-context-slot"] || s.Cached != m.notes["cached"] {
			t.Errorf("%s: %+v, want minContextSlot %v, cached %v", m.name, s, m.notes["min-context-slot"], m.notes["cached"])
		}
	}
	for _, name := range methods.Default().Names() {
		if slots.TraitsOf(name).Context && !listed[name] {
			t.Errorf("%s: tracked as an RpcResponse, which agave's rpc.rs does not say", name)
		}
	}
}
