package config

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/retrypolicy"
)

// The Document is what the constructors take: these tests build the pool
// and the transport from one, as the root package does, and check that
// each setting arrives. config itself builds nothing.

// newClient builds a transport client from d and its declared methods.
func newClient(t *testing.T, d *Document, clock clockwork.Clock) *engine.Engine {
	t.Helper()
	reg, err := d.Registry(nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := admission.New(d.Endpoints, *d.Pool, admission.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	c, err := engine.New(p, *d.Transport, engine.Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

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

// TestExpandedHeaderReachesTheServer: a ${VAR} in a header value is
// expanded into what the transport sends.
func TestExpandedHeaderReachesTheServer(t *testing.T) {
	srv := newRPCServer(t, `"ok"`)
	d, err := Parse([]byte(`[[endpoints]]
name = "local"
url = "`+srv.URL+`"
headers = { Authorization = "Bearer ${TOKEN}" }
  [endpoints.roles.read]
  requests_per_second = 100
  request_timeout = "5s"
`), ParseOptions{LookupEnv: env(map[string]string{"TOKEN": "t0k"})})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, d, nil)
	var got string
	if err := c.CallForInto(context.Background(), &got, "getHealth", nil); err != nil || got != "ok" {
		t.Fatalf("getHealth = %q, %v", got, err)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.auths) != 1 || srv.auths[0] != "Bearer t0k" {
		t.Fatalf("server saw Authorization %q, want the expanded header once", srv.auths)
	}
}

// TestPoolTakesEjection: consecutive_failures = 2: the second failure in a
// row ejects.
func TestPoolTakesEjection(t *testing.T) {
	d, err := Parse([]byte("[pool.ejection]\nconsecutive_failures = 2\n"+oneEndpoint), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := admission.New(d.Endpoints, *d.Pool, admission.Options{Clock: clockwork.NewFakeClock()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		pm, err := p.Acquire(context.Background(), admission.Request{Role: endpoint.RoleRead, Method: "getSlot"})
		if err != nil {
			t.Fatalf("acquire %d: %v", i, err)
		}
		pm.Done(retrypolicy.Outcome{Cause: retrypolicy.Connection, Dispatch: retrypolicy.NotDispatched,
			Fault: retrypolicy.EndpointFault})
	}
	if s := p.Snapshot()[0]; s.State != endpoint.Ejected {
		t.Fatalf("after 2 failures the endpoint is %v, want ejected", s.State)
	}
}
