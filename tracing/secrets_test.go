package tracing_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/tracing"
	"github.com/solroute/solroute/transport"
)

// marker is the secret planted in URLs and headers. No span may show it
// in any form fixturedata.FindSecret can undo (percent, JSON, hex, base64).
const marker = "TrAcEsEcReT"

// placement plants marker in one part of an endpoint's URL or headers.
type placement = fixturedata.SecretPlacement

func placements() []placement { return fixturedata.SecretPlacements(marker) }

// server kinds a failure mode runs against.
const (
	fixtureServer = iota // a fixtures.Server running the mode's fault
	echoServer           // fixturedata.EchoHandler: quotes the request in its errors
	downServer           // a fixtures.Server refusing connections
	tlsMismatch          // https to a plain fixtures.Server
	dnsFailure           // a host name that cannot resolve
)

// failureMode is one way the endpoint fails (or, for "none", does not).
type failureMode struct {
	name    string
	server  int
	fault   fixtures.Fault
	timeout bool // each attempt ends only when the pool's clock passes its deadline
	limit   int64
}

// failureModes are every fixtures.FaultKind (found by its String, so a
// kind added later is covered), more statuses and codes, a refused
// connection, TLS to a plain listener, a DNS failure and a server echoing
// the request.
func failureModes() []failureMode {
	var modes []failureMode
	for k := fixtures.FaultKind(0); !strings.HasPrefix(k.String(), "fault-kind("); k++ {
		m := failureMode{name: k.String(), fault: fixtures.Fault{Kind: k}}
		switch k {
		case fixtures.HTTPStatus:
			m.fault.Status, m.fault.RetryAfter = 503, "1"
		case fixtures.RPCError:
			m.fault.RPCCode = -32005
		case fixtures.SlowBody:
			m.fault.Delay, m.timeout = time.Hour, true
		case fixtures.Hang:
			m.timeout = true
		case fixtures.OversizedBody:
			m.fault.Size, m.limit = 4096, 1024
		}
		modes = append(modes, m)
	}
	return append(modes,
		failureMode{name: "http 429", fault: fixtures.Status(429, "1")},
		failureMode{name: "http 401", fault: fixtures.Status(401, "")},
		failureMode{name: "rpc 429", fault: fixtures.RPC(429)},
		failureMode{name: "rpc -32002", fault: fixtures.RPC(-32002)},
		failureMode{name: "refused", server: downServer},
		failureMode{name: "tls to plain", server: tlsMismatch},
		failureMode{name: "dns", server: dnsFailure},
		failureMode{name: "echo", server: echoServer},
	)
}

// secretEnv is one endpoint, with the marker placed in it, failing one
// way, traced by a recording provider.
type secretEnv struct {
	t      *testing.T
	mode   failureMode
	fake   *fixtures.Server // nil for the echo server and DNS
	clock  *clockwork.FakeClock
	pool   *admission.Pool
	client *engine.Engine
	spans  *tracetest.InMemoryExporter
}

func newSecretEnv(t *testing.T, pl placement, m failureMode) *secretEnv {
	e := &secretEnv{t: t, mode: m, clock: clockwork.NewFakeClockAt(epoch)}
	scheme, hostport := "http", "nohost-"+fixturedata.UnresolvableLabel+".invalid:1"
	switch m.server {
	case echoServer:
		srv := httptest.NewServer(fixturedata.EchoHandler())
		t.Cleanup(srv.Close)
		hostport = strings.TrimPrefix(srv.URL, "http://")
	case fixtureServer, downServer, tlsMismatch:
		opts := fixtures.Options{Clock: clockwork.NewFakeClockAt(epoch)} // never advanced
		if m.server == fixtureServer {
			opts.Script = fixtures.Always(m.fault)
		}
		e.fake = fixtures.NewServer(opts)
		t.Cleanup(e.fake.Close)
		hostport = strings.TrimPrefix(e.fake.URL(), "http://")
		if m.server == downServer {
			e.fake.SetDown(true)
		}
		if m.server == tlsMismatch {
			scheme = "https"
		}
	}
	// A rate limit pauses the role longer than a call's deadline: the
	// next call then waits in the pool until the test passes it.
	l := endpoint.Limits{RequestTimeout: time.Second, PauseAfterRateLimit: time.Hour}
	spec := endpoint.Spec{Name: "a", URL: endpoint.NewSecret(pl.URL(scheme, hostport)),
		Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: l, endpoint.RoleSend: l}}
	if pl.Headers != nil {
		spec.Headers = map[string]endpoint.Secret{}
		for k, v := range pl.Headers {
			spec.Headers[k] = endpoint.NewSecret(v)
		}
	}
	p, err := admission.New([]endpoint.Spec{spec}, pool.Settings{}, admission.Options{Clock: e.clock})
	if err != nil {
		t.Fatal(err)
	}
	s := transport.DefaultSettings()
	s.Retry.MaxRetries, s.AttemptTimeout, s.MaxResponseBytes = 0, time.Hour, 1<<20
	if m.limit != 0 {
		s.MaxResponseBytes = m.limit
	}
	c, err := engine.New(p, s, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	tp, spans, _ := recordingProvider(t)
	tracing.Instrument(c, tracing.Options{TracerProvider: tp})
	e.pool, e.client, e.spans = p, c, spans
	return e
}

// run makes one call of role under a caller's context, driving the
// pool's clock past the attempt's deadline when the mode needs it, or
// past the call's deadline when a rate limit paused the role.
func (e *secretEnv) run(role endpoint.Role, call func(context.Context) error) error {
	e.t.Helper()
	next := 0
	if e.fake != nil {
		next = e.fake.Stats().Requests + 1
	}
	paused := false
	for _, s := range e.pool.Snapshot() {
		paused = paused || s.Role == role && s.State == endpoint.RateLimited
	}
	ch := async(func() error { return call(context.Background()) })
	if e.mode.timeout || paused {
		g := guardCtx(e.t)
		if !paused {
			if err := e.fake.WaitRequests(g, next); err != nil {
				e.t.Fatalf("the server never got request %d: %v", next, err)
			}
		}
		if err := e.clock.BlockUntilContext(g, 1); err != nil {
			e.t.Fatalf("no timer on the pool's clock: %v", err)
		}
		e.clock.Advance(time.Second)
	}
	return wait(e.t, ch)
}

// calls makes every kind of call once: a read and a send, a callback
// that quotes the request's URL and headers in its error, and a read
// through solana-go's client.
func (e *secretEnv) calls(params []any) []error {
	return []error{
		e.run(endpoint.RoleRead, func(ctx context.Context) error { return getBalance(ctx, e.client) }),
		e.run(endpoint.RoleSend, func(ctx context.Context) error {
			return e.client.CallForInto(ctx, nil, "sendTransaction", params)
		}),
		e.run(endpoint.RoleRead, func(ctx context.Context) error {
			return e.client.CallWithCallback(ctx, "getSlot", nil, func(req *http.Request, resp *http.Response) error {
				body, _ := io.ReadAll(resp.Body)
				return fmt.Errorf("bad answer from %s (%s, headers %v): %s", req.URL, req.URL.Query(), req.Header, body)
			})
		}),
		e.run(endpoint.RoleRead, func(ctx context.Context) error {
			_, err := rpc.NewWithCustomRPCClient(e.client).GetSlot(ctx, rpc.CommitmentProcessed)
			return err
		}),
	}
}

// spanTexts renders everything an exporter could send of the spans: each
// span's name, every attribute (key and value), every event (name and
// attributes), its status description, every fmt form of the stub, and
// all of them as JSON.
func spanTexts(spans tracetest.SpanStubs) map[string]string {
	out := map[string]string{}
	add := func(where, s string) { out[s] = where }
	for i, s := range spans {
		where := fmt.Sprintf("span %d (%s)", i, s.Name)
		add(where+" name", s.Name)
		add(where+" status", s.Status.Description)
		for _, kv := range s.Attributes {
			add(where+" attribute", string(kv.Key)+"="+kv.Value.String())
		}
		for _, ev := range s.Events {
			add(where+" event", ev.Name)
			for _, kv := range ev.Attributes {
				add(where+" event attribute", string(kv.Key)+"="+kv.Value.String())
			}
		}
		for _, verb := range []string{"%v", "%+v", "%#v", "%x"} {
			add(where+" "+verb, fmt.Sprintf(verb, s))
		}
	}
	if js, err := json.Marshal(spans); err == nil {
		add("spans json", string(js))
	}
	return out
}

// TestSpansShowNoSecret: a marker in every URL part and header form,
// times every failure mode, times every kind of call; no span name,
// attribute, event or status shows it, in any encoding. Every failing
// mode shows as failed calls, so the errors were recorded and checked.
func TestSpansShowNoSecret(t *testing.T) {
	params := sendParams(t, 42)
	var cases, checks atomic.Int64
	t.Run("cases", func(t *testing.T) {
		for _, pl := range placements() {
			for _, m := range failureModes() {
				if pl.DNSOnly && m.server != dnsFailure {
					continue
				}
				t.Run(pl.Name+"/"+m.name, func(t *testing.T) {
					t.Parallel()
					e := newSecretEnv(t, pl, m)
					errs := e.calls(params)
					spans := e.spans.GetSpans()
					failed := 0
					for _, s := range spans {
						if s.Status.Code == codes.Error && len(s.Events) > 0 {
							failed++
						}
					}
					if m.name != "none" && (failed == 0 || errs[0] == nil) {
						t.Errorf("no call failed: errors %v", errs)
					}
					texts := spanTexts(spans)
					messages := 0
					for s := range texts {
						if strings.HasPrefix(s, "exception.message=") {
							messages++
						}
					}
					if m.name != "none" && messages == 0 {
						t.Errorf("no error message among the span texts: the check would miss the likeliest leak")
					}
					for s, where := range texts {
						if form, leaked := fixturedata.FindSecret(s, marker); leaked {
							t.Errorf("%s shows the secret (%s):\n%s", where, form, s)
						}
					}
					cases.Add(1)
					checks.Add(int64(len(texts)))
				})
			}
		}
	})
	t.Logf("%d cases (placement × failure mode), %d distinct span texts checked", cases.Load(), checks.Load())
}
