package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/solroute/solroute/fixtures"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// result is what one run of the command produced.
type result struct {
	code           int
	stdout, stderr string
}

// runCmd runs the command with args and returns its exit code and output.
func runCmd(t *testing.T, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// wantCode fails the test when r's exit code is not want, showing the
// output.
func (r result) wantCode(t *testing.T, want int) {
	t.Helper()
	if r.code != want {
		t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, want, r.stdout, r.stderr)
	}
}

// usageCase is a command line that must fail as a usage error.
type usageCase struct {
	name string
	args []string
	want string // in the one stderr line
}

// runUsageCases runs every case as a subtest: exit code exitUsage, one
// stderr line holding want, nothing on stdout.
func runUsageCases(t *testing.T, cases []usageCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			r := runCmd(t, tt.args...)
			r.wantCode(t, exitUsage)
			got := lines(r.stderr)
			if len(got) != 1 || !strings.Contains(got[0], tt.want) {
				t.Fatalf("want one line with %q, got %q", tt.want, r.stderr)
			}
			if r.stdout != "" {
				t.Fatalf("stdout: %q", r.stdout)
			}
		})
	}
}

// testEndpoint is one [[endpoints]] table of a test configuration.
type testEndpoint struct {
	name   string
	url    string
	tier   int
	header string // an Authorization header value; "" for none
	roles  string // "read", "send" or "" for both
}

// startServer starts a fake endpoint closed at the end of the test.
func startServer(t *testing.T, opts fixtures.Options) *fixtures.Server {
	t.Helper()
	s := fixtures.NewServer(opts)
	t.Cleanup(s.Close)
	return s
}

// writeConfig writes a configuration document to a temporary file and
// returns its path. cluster "" leaves the key out.
func writeConfig(t *testing.T, cluster string, eps ...testEndpoint) string {
	t.Helper()
	var b strings.Builder
	if cluster != "" {
		fmt.Fprintf(&b, "cluster = %q\n", cluster)
	}
	b.WriteString("[retry]\ninitial_backoff = \"1ms\"\nmax_backoff = \"5ms\"\n")
	for _, ep := range eps {
		fmt.Fprintf(&b, "\n[[endpoints]]\nname = %q\nurl = %q\ntier = %d\n", ep.name, ep.url, ep.tier)
		if ep.header != "" {
			fmt.Fprintf(&b, "headers = { Authorization = %q }\n", ep.header)
		}
		if ep.roles == "" || ep.roles == "read" {
			b.WriteString("  [endpoints.roles.read]\n  request_timeout = \"2s\"\n")
		}
		if ep.roles == "" || ep.roles == "send" {
			b.WriteString("  [endpoints.roles.send]\n  request_timeout = \"2s\"\n")
		}
	}
	return writeFile(t, "solroute.toml", b.String())
}

// writeFile writes data to name in a fresh temporary directory.
func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// lines splits s into its non-empty lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}
