package main

import (
	"strings"
	"testing"
)

// TestMissingVariableReportedOnce: a variable missing from the
// environment is one problem, on one line naming it and every endpoint
// (by name, with its lines) or key that uses it, however many urls and
// headers do (issue 21: it was reported once per use); the other problems
// keep their lines, in order.
func TestMissingVariableReportedOnce(t *testing.T) {
	cfg := writeFile(t, "rpc.toml", `cluster = "moonnet"

[[endpoints]]
name = "provider-a"
url = "https://a.example/v1/${SOLROUTE_TEST_UNSET_KEY}"
  [endpoints.roles.read]

[[endpoints]]
name = "provider-b"
url = "https://b.example/?key=${SOLROUTE_TEST_UNSET_KEY}"
headers = { Authorization = "Bearer ${SOLROUTE_TEST_UNSET_KEY}" }
  [endpoints.roles.read]

[[endpoints]]
url = "https://c.example/${SOLROUTE_TEST_UNSET_OTHER}"
  [endpoints.roles.read]
`)
	r := runCmd(t, "probe", "--config", cfg)
	r.wantCode(t, exitUsage)
	want := []string{
		"solroute probe: config: " + cfg + ": invalid configuration (4 problems):",
		"  " + cfg + ":1: cluster: ",
		"  " + cfg + `:5: environment variable SOLROUTE_TEST_UNSET_KEY is not set; used by endpoint "provider-a" (line 5), endpoint "provider-b" (lines 10, 11)`,
		"  " + cfg + ":14: endpoints[2]",
		"  " + cfg + ":15: environment variable SOLROUTE_TEST_UNSET_OTHER is not set; used by endpoints[2].url (line 15)",
	}
	got := lines(r.stderr)
	if len(got) != len(want) {
		t.Fatalf("stderr has %d lines, want %d:\n%s", len(got), len(want), r.stderr)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("line %d:\n  %q\nwant it to start with\n  %q", i+1, got[i], want[i])
		}
	}
	for _, secret := range []string{"a.example", "b.example", "Bearer"} {
		if strings.Contains(r.stderr, secret) {
			t.Errorf("stderr shows %q:\n%s", secret, r.stderr)
		}
	}
}
