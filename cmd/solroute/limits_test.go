package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/redistest"
)

// redisMarker is a password planted in a [limits] url.
const redisMarker = "CliReDiSmArKeR"

// limitsConfig writes a document with a [limits] table of url and one
// endpoint a at s, with a rate for each role.
func limitsConfig(t *testing.T, url string, s *fixtures.Server) string {
	t.Helper()
	return writeFile(t, "solroute.toml", fmt.Sprintf(`[limits]
backend = "redis"
url = %q
key_prefix = "cli:"
replicas = 2
[[endpoints]]
name = "a"
url = %q
  [endpoints.roles.read]
  requests_per_second = 1000
  [endpoints.roles.send]
  requests_per_second = 100
`, url, s.URL()))
}

// TestCallWithSharedLimits: "solroute call" on a document whose [limits]
// backend is "redis" pays its reads from the shared bucket in Redis, as
// before the library stopped linking go-redis: the command builds the
// limiter itself and closes it (TestMain checks no goroutine is left).
func TestCallWithSharedLimits(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{Password: "pw-" + redisMarker})
	s := startServer(t, fixtures.Options{})
	r := runCmd(t, "call", "--config", limitsConfig(t, srv.URL(), s), "getSlot")
	r.wantCode(t, exitOK)
	if strings.TrimSpace(r.stdout) != fmt.Sprint(fixturedata.RecordedSlot) {
		t.Errorf("stdout %q, want the slot", r.stdout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if got, err := srv.Do(ctx, "EXISTS", "cli:a:read"); err != nil || got != ":1" {
		t.Errorf("EXISTS cli:a:read = %q, %v: the call was not paid from Redis", got, err)
	}
}

// TestSharedLimitsRefusedCredentials: credentials the server refuses stop
// "solroute call" and the commands that open a pool (send, confirm)
// before any request, with exit 2 and an error that quotes no part of the
// URL.
func TestSharedLimitsRefusedCredentials(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{Password: "right"})
	s := startServer(t, fixtures.Options{})
	cfg := limitsConfig(t, "redis://:"+redisMarker+"@"+srv.Addr()+"/0", s)
	r := runCmd(t, "call", "--config", cfg, "getSlot")
	r.wantCode(t, exitUsage)
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, clock: clockwork.NewRealClock()}
	doc, code := e.loadConfig("send", cfg)
	if doc == nil {
		t.Fatalf("loadConfig: exit %d: %s", code, errb.String())
	}
	if c, code := e.openPool("send", cfg, doc, "sendTransaction"); c != nil || code != exitUsage {
		if c != nil {
			_ = c.Close()
		}
		t.Fatalf("openPool with refused credentials: exit %d", code)
	}
	for _, stderr := range []string{r.stderr, errb.String()} {
		if !strings.Contains(stderr, "[limits]") || !strings.Contains(stderr, "user or password") {
			t.Errorf("stderr %q: want the [limits] url's credentials named", stderr)
		}
		if strings.Contains(stderr, redisMarker) || strings.Contains(stderr, srv.Addr()) {
			t.Errorf("stderr quotes the URL: %q", stderr)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("the endpoint received %d requests, want none", n)
	}
}
