package solroute_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/redistest"
	"github.com/solroute/solroute/redislimit"
)

// limitsMarker is a password planted in a [limits] url.
const limitsMarker = "LiMiTsMaRkEr"

// TestOpenWithSharedLimits: a document with [limits] backend = "redis"
// gets buckets leased from Redis (the pool's calls are paid from them),
// and Close closes the limiter (TestMain checks no goroutine is left).
func TestOpenWithSharedLimits(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{Password: "pw-" + limitsMarker})
	ep := fakeEndpoint("provider")
	defer ep.Close()
	path := filepath.Join(t.TempDir(), "rpc.toml")
	doc := `[limits]
backend = "redis"
url = "${REDIS_URL}"
key_prefix = "rootdoc:"
replicas = 2
[[endpoints]]
name = "provider"
url = "` + ep.URL() + `"
  [endpoints.roles.read]
  requests_per_second = 1000
`
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("REDIS_URL", srv.URL())
	c, err := solroute.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		if _, err := c.RPC().GetSlot(context.Background(), rpc.CommitmentConfirmed); err != nil {
			t.Fatal(err)
		}
	}
	st := c.Limiter().Stats()
	if st.Taken != 50 || st.Down || st.Ops == 0 || st.Ops >= 50 {
		t.Errorf("limiter stats %+v: want 50 admissions from leases, fewer round trips than calls", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if got, err := srv.Do(ctx, "EXISTS", "rootdoc:provider:read"); err != nil || got != ":1" {
		t.Errorf("EXISTS rootdoc:provider:read = %q, %v", got, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}

	// Local buckets: no limiter.
	d, err := config.Parse([]byte(strings.Replace(doc, `backend = "redis"`+"\n"+`url = "${REDIS_URL}"`, `backend = "local"`, 1)), config.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	local, err := solroute.FromDocument(d, solroute.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	if local.Limiter() != nil {
		t.Error("a local document has a shared limiter")
	}
}

// TestOpenRefusesRedisCredentials: credentials the server refuses stop
// Open with a *redislimit.SetupError that quotes no part of the URL.
func TestOpenRefusesRedisCredentials(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{Password: "right"})
	d, err := config.Parse([]byte(`[limits]
backend = "redis"
url = "redis://u`+limitsMarker+`:p`+limitsMarker+`@`+srv.Addr()+`/0"
[[endpoints]]
name = "a"
url = "https://a.example"
  [endpoints.roles.read]
  requests_per_second = 10
`), config.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := solroute.FromDocument(d, solroute.Hooks{})
	var se *redislimit.SetupError
	if err == nil {
		c.Close()
		t.Fatal("accepted credentials the server refuses")
	}
	if !errors.As(err, &se) || se.Kind != redislimit.KindAuth {
		t.Fatalf("err = %v, want a *redislimit.SetupError of kind auth", err)
	}
	for _, secret := range []string{limitsMarker, srv.Addr()} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error shows %s: %v", secret, err)
		}
	}
	t.Logf("the error reads: %v", err)
}

// TestNewWithSharedLimits: plain-Go Options.Limits reaches the same
// limiter as a document's [limits]; a bad one is refused before any
// request, quoting no part of its URL.
func TestNewWithSharedLimits(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{Password: "pw-" + limitsMarker})
	ep := fakeEndpoint("provider")
	defer ep.Close()
	eps := []solroute.Endpoint{{Name: "provider", URL: ep.URL(), Read: &endpoint.Limits{RequestsPerSecond: 1000}}}
	s := redislimit.DefaultSettings()
	s.Backend, s.URL, s.KeyPrefix = redislimit.BackendRedis, endpoint.NewSecret(srv.URL()), "plain:"
	c, err := solroute.New(solroute.Options{Endpoints: eps, Limits: &s})
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if _, err := c.RPC().GetSlot(context.Background(), rpc.CommitmentConfirmed); err != nil {
			t.Fatal(err)
		}
	}
	if st := c.Limiter().Stats(); st.Taken != 20 || st.Down {
		t.Errorf("limiter stats %+v: want 20 admissions from Redis leases", st)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	bad := s
	bad.URL = endpoint.NewSecret("redis://user:" + limitsMarker + "@127.0.0.1:1/notadb")
	if _, err := solroute.New(solroute.Options{Endpoints: eps, Limits: &bad}); err == nil || strings.Contains(err.Error(), limitsMarker) {
		t.Fatalf("New with a bad Limits URL: %v", err)
	}
}
