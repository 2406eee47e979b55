package metrics

import (
	"strings"
	"testing"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/retrypolicy"
)

// TestArraysCoverEveryName: the arrays of children are as long as
// retrypolicy's causes and rules and endpoint's roles, found by their
// String, so that a value added there later fails here (it would still
// count, through the vec's own lookup, but each time at that cost).
func TestArraysCoverEveryName(t *testing.T) {
	n := 0
	for ; !strings.HasPrefix(retrypolicy.Cause(n).String(), "cause("); n++ {
	}
	if n != numCauses {
		t.Errorf("retrypolicy has %d causes (none included), the arrays %d", n, numCauses)
	}
	n = 0
	for ; !strings.HasPrefix(retrypolicy.Rule(n).String(), "rule("); n++ {
	}
	if n != numRules {
		t.Errorf("retrypolicy has %d rules (none included), the arrays %d", n, numRules)
	}
	if n := len(endpoint.AllRoles()); n != numRoles {
		t.Errorf("endpoint has %d roles, the arrays %d", n, numRoles)
	}
	seen := map[string]bool{}
	for i := range numOutcomes {
		name := outcomeName(i)
		if seen[name] {
			t.Errorf("outcome %d's name %q is taken", i, name)
		}
		seen[name] = true
	}
}

// TestLabelValuesAreValidUTF8: a name that is not valid UTF-8 still
// labels (client_golang would panic on it).
func TestLabelValuesAreValidUTF8(t *testing.T) {
	if got := label("a\xffb"); got != "a\uFFFDb" {
		t.Errorf("label = %q", got)
	}
}
