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
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/redislimit"
)

// limitsMarker is a password planted in a [limits] url.
const limitsMarker = "LiMiTsMaRkEr"

// TestFromDocumentWithSharedLimits: a document with [limits] backend = "redis"
// and the limiter the program built from it gets buckets leased from
// Redis (the pool's calls are paid from them). Client.Close leaves the
// limiter to its owner (TestMain checks no goroutine is left once both
// are closed).
func TestFromDocumentWithSharedLimits(t *testing.T) {
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
	d, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	lim, err := redislimit.New(context.Background(), d.Limits, redislimit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lim.Close()
	c, err := solroute.FromDocument(d, solroute.Hooks{Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		if _, err := c.RPC().GetSlot(context.Background(), rpc.CommitmentConfirmed); err != nil {
			t.Fatal(err)
		}
	}
	st := lim.Stats()
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
	if st := lim.Stats(); st.Down {
		t.Errorf("Client.Close closed the limiter its owner holds: %+v", st)
	}
	if err := lim.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRedisDocumentWithoutLimiter: a document that asks for shared
// limits, opened by a program that passed no limiter, fails before any
// request with an error that names the import and the call to make, and
// quotes nothing of the Redis URL; a limiter passed with a document that
// keeps its buckets local is refused the same way. No Redis is needed:
// nothing is dialed.
func TestRedisDocumentWithoutLimiter(t *testing.T) {
	ep := fakeEndpoint("provider")
	defer ep.Close()
	endpoints := `[[endpoints]]
name = "provider"
url = "` + ep.URL() + `"
  [endpoints.roles.read]
  requests_per_second = 10
`
	path := filepath.Join(t.TempDir(), "rpc.toml")
	redisDoc := "[limits]\nbackend = \"redis\"\nurl = \"redis://:" + limitsMarker + "@127.0.0.1:1/0\"\n" + endpoints
	if err := os.WriteFile(path, []byte(redisDoc), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	opens := map[string]func() (*solroute.Client, error){
		"Open":         func() (*solroute.Client, error) { return solroute.Open(path) },
		"FromDocument": func() (*solroute.Client, error) { return solroute.FromDocument(d, solroute.Hooks{}) },
	}
	for name, open := range opens {
		c, err := open()
		if err == nil {
			_ = c.Close()
			t.Fatalf("%s: a redis document without a limiter was opened (on local buckets)", name)
		}
		for _, want := range []string{`backend = "redis"`, `import "github.com/solroute/solroute/redislimit"`,
			"redislimit.New(ctx, doc.Limits", "solroute.Hooks{Limits: lim}"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: the error does not say %s: %v", name, want, err)
			}
		}
		if strings.Contains(err.Error(), limitsMarker) || strings.Contains(err.Error(), "127.0.0.1") {
			t.Errorf("%s: the error quotes the Redis URL: %v", name, err)
		}
	}
	t.Logf("the error reads: %v", mustFail(solroute.Open(path)))

	local, err := config.Parse([]byte(endpoints), config.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := solroute.FromDocument(local, solroute.Hooks{Limits: countingLimiter{}})
	if err == nil {
		_ = c.Close()
		t.Fatal("a local document took a shared limiter")
	}
	if !strings.Contains(err.Error(), `backend is "local"`) {
		t.Errorf("the error for a limiter with a local document: %v", err)
	}
	if reqs := ep.Requests(); len(reqs) != 0 {
		t.Errorf("the endpoint received %d requests, want none", len(reqs))
	}
}

// mustFail returns err, for a log line.
func mustFail(c *solroute.Client, err error) error {
	if c != nil {
		_ = c.Close()
	}
	return err
}

// countingLimiter is a pool.Limiter that supplies no bucket of its own.
type countingLimiter struct{}

func (countingLimiter) NewBucket(*endpoint.Spec, endpoint.Role) pool.Bucket { return nil }

// TestRedisRefusesCredentials: credentials the server refuses stop
// redislimit.New, built from a document's [limits], with a
// *redislimit.SetupError that quotes no part of the URL.
func TestRedisRefusesCredentials(t *testing.T) {
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
	lim, err := redislimit.New(context.Background(), d.Limits, redislimit.Options{})
	var se *redislimit.SetupError
	if err == nil {
		_ = lim.Close()
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

// TestNewWithSharedLimits: in plain Go, Options.Hooks.Limits takes the
// same limiter a document's program passes; redislimit.New refuses a bad
// URL before any request, quoting no part of it.
func TestNewWithSharedLimits(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{Password: "pw-" + limitsMarker})
	ep := fakeEndpoint("provider")
	defer ep.Close()
	eps := []solroute.Endpoint{{Name: "provider", URL: ep.URL(), Read: &endpoint.Limits{RequestsPerSecond: 1000}}}
	s := config.DefaultLimits()
	s.Backend, s.URL, s.KeyPrefix = config.BackendRedis, endpoint.NewSecret(srv.URL()), "plain:"
	lim, err := redislimit.New(context.Background(), s, redislimit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lim.Close()
	c, err := solroute.New(solroute.Options{Endpoints: eps, Hooks: solroute.Hooks{Limits: lim}})
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if _, err := c.RPC().GetSlot(context.Background(), rpc.CommitmentConfirmed); err != nil {
			t.Fatal(err)
		}
	}
	if st := lim.Stats(); st.Taken != 20 || st.Down {
		t.Errorf("limiter stats %+v: want 20 admissions from Redis leases", st)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	bad := s
	bad.URL = endpoint.NewSecret("redis://user:" + limitsMarker + "@127.0.0.1:1/notadb")
	if l, err := redislimit.New(context.Background(), bad, redislimit.Options{}); err == nil || strings.Contains(err.Error(), limitsMarker) {
		if l != nil {
			_ = l.Close()
		}
		t.Fatalf("redislimit.New with a bad URL: %v", err)
	}
}
