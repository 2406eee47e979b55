package config

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/transport"
)

// rpcServer answers every JSON-RPC call with result and records the
// Authorization header of each request.
type rpcServer struct {
	*httptest.Server
	mu    sync.Mutex
	auths []string
}

func newRPCServer(t *testing.T, result string) *rpcServer {
	t.Helper()
	s := &rpcServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		s.mu.Lock()
		s.auths = append(s.auths, r.Header.Get("Authorization"))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+result+`}`)
	}))
	t.Cleanup(s.Close)
	return s
}

// docFor is a one-endpoint document for url with an expanded header.
func docFor(url string) []byte {
	return []byte(`[[endpoints]]
name = "local"
url = "` + url + `"
headers = { Authorization = "Bearer ${TOKEN}" }
  [endpoints.roles.read]
  requests_per_second = 100
  request_timeout = "5s"
`)
}

func TestNewSolanaClient(t *testing.T) {
	srv := newRPCServer(t, `"ok"`)
	cfg, err := Parse(docFor(srv.URL), ParseOptions{LookupEnv: env(map[string]string{"TOKEN": "t0k"})})
	if err != nil {
		t.Fatal(err)
	}
	rc, tc, err := NewSolanaClient(cfg, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	got, err := rc.GetHealth(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got != "ok" {
		t.Fatalf("GetHealth = %q", got)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.auths) != 1 || srv.auths[0] != "Bearer t0k" {
		t.Fatalf("server saw Authorization %q, want the expanded header once", srv.auths)
	}
}

func TestNewClientOptions(t *testing.T) {
	srv := newRPCServer(t, `{"solana-core":"2.2.0","feature-set":1}`)
	cfg, err := Parse(docFor(srv.URL), ParseOptions{LookupEnv: env(map[string]string{"TOKEN": "t"})})
	if err != nil {
		t.Fatal(err)
	}
	clock := clockwork.NewFakeClockAt(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	var mu sync.Mutex
	var attempts []string
	c, err := NewClient(cfg, ClientOptions{
		Clock: clock,
		OnAttempt: func(method string, a transport.Attempt) {
			mu.Lock()
			attempts = append(attempts, method+"@"+a.Endpoint)
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Pool().Clock() != clock {
		t.Error("the pool does not run on ClientOptions.Clock")
	}
	var out map[string]any
	if err := c.CallForInto(context.Background(), &out, "getVersion", nil); err != nil {
		t.Fatal(err)
	}
	if out["solana-core"] != "2.2.0" {
		t.Errorf("getVersion = %v", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(attempts) != 1 || attempts[0] != "getVersion@local" {
		t.Errorf("OnAttempt saw %v", attempts)
	}
}

func TestNewClientRejectsInvalidConfig(t *testing.T) {
	cfg := &Config{Endpoints: []Endpoint{{Name: "a", URL: endpoint.NewSecret("ftp://x/" + marker)}}}
	if _, err := NewClient(cfg, ClientOptions{}); err == nil {
		t.Fatal("NewClient accepted an invalid Config")
	} else {
		var verr *endpoint.ValidationError
		if !errors.As(err, &verr) || !strings.HasPrefix(err.Error(), "config: ") || strings.Contains(err.Error(), marker) {
			t.Fatalf("err = %v, want a config: *endpoint.ValidationError without the URL", err)
		}
	}
	if _, _, err := NewSolanaClient(cfg, ClientOptions{}); err == nil {
		t.Fatal("NewSolanaClient accepted an invalid Config")
	}
}
