package engine_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/transport"
)

// marker is the secret planted in URLs and headers. No output may show
// it in any form fixturedata.FindSecret can undo (percent, JSON, hex,
// base64).
const marker = "SeCrEtMaRkEr"

// placement plants marker in one part of an endpoint's URL or headers.
type placement = fixturedata.SecretPlacement

func placements() []placement { return fixturedata.SecretPlacements(marker) }

// server kinds a failure mode runs against.
const (
	fixtureServer = iota // fixtures.Server running mode.fault
	echoServer           // fixturedata.EchoHandler
	downServer           // a fixtures.Server that refuses connections
	tlsMismatch          // https to a plain fixtures.Server
	dnsFailure           // a host name that cannot resolve
)

// failureMode is one way an endpoint fails (or, for None, does not).
type failureMode struct {
	name   string
	server int
	fault  fixtures.Fault
	// timeout: each attempt ends only when the pool's clock passes its
	// timeout.
	timeout bool
	// limit is MaxResponseBytes (0: 1 MiB).
	limit int64
	// proof says whether the errors show that the mode was exercised.
	proof func(errs []error) bool
}

// failureModes are every fixtures.FaultKind (found by its String, so a
// kind added later is covered), more statuses and codes, a refused
// connection, TLS to a plain listener, a DNS failure, the pool's deadline
// and a server echoing the request in every form.
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
	is := func(target error) func([]error) bool {
		return func(errs []error) bool {
			return slicesContainsFunc(errs, func(err error) bool { return errors.Is(err, target) })
		}
	}
	says := func(text string) func([]error) bool {
		return func(errs []error) bool {
			return slicesContainsFunc(errs, func(err error) bool { return err != nil && strings.Contains(err.Error(), text) })
		}
	}
	return append(modes,
		failureMode{name: "http 429", fault: fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 429, RetryAfter: "1"}},
		failureMode{name: "http 400", fault: fixtures.Status(400, "")},
		failureMode{name: "rpc 429", fault: fixtures.RPC(429)},
		failureMode{name: "rpc -32002", fault: fixtures.RPC(-32002)},
		failureMode{name: "refused", server: downServer, proof: says("connection refused")},
		failureMode{name: "tls to plain", server: tlsMismatch, proof: says("tls: ")},
		failureMode{name: "dns", server: dnsFailure, proof: func(errs []error) bool {
			var de *net.DNSError
			return slicesContainsFunc(errs, func(err error) bool { return errors.As(err, &de) })
		}},
		// A 429 pauses the endpoint longer than the next calls' deadline.
		failureMode{name: "deadline", fault: fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 429, RetryAfter: "30"},
			proof: is(admission.ErrDeadline)},
		failureMode{name: "echo", server: echoServer, proof: func(errs []error) bool {
			var re *transport.RPCError
			var sg *jsonrpc.RPCError // solana-go's copy, built from the redacted one
			return slicesContainsFunc(errs, func(err error) bool {
				return errors.As(err, &re) && re.Code == fixturedata.EchoCode && errors.As(err, &sg) && sg.Code == fixturedata.EchoCode
			})
		}},
		failureMode{name: "http 503 as solana-go's", fault: fixtures.Status(503, ""), proof: func(errs []error) bool {
			var he *jsonrpc.HTTPError
			return slicesContainsFunc(errs, func(err error) bool { return errors.As(err, &he) && he.Code == 503 })
		}},
	)
}

func slicesContainsFunc(errs []error, f func(error) bool) bool {
	for _, err := range errs {
		if f(err) {
			return true
		}
	}
	return false
}

// syncBuffer is a bytes.Buffer safe for concurrent loggers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// debugLogger logs at debug level to w through both slog handlers.
func debugLogger(w io.Writer) *slog.Logger {
	o := &slog.HandlerOptions{Level: slog.LevelDebug}
	return slog.New(slog.NewMultiHandler(slog.NewTextHandler(w, o), slog.NewJSONHandler(w, o)))
}

// secretEnv is one endpoint, with a secret placed in it, failing one way.
type secretEnv struct {
	t      *testing.T
	mode   failureMode
	fake   *fixtures.Server // nil for the echo server and DNS
	clock  *clockwork.FakeClock
	pool   *admission.Pool
	client *engine.Engine
	logs   *syncBuffer
}

func newSecretEnv(t *testing.T, pl placement, m failureMode) *secretEnv {
	e := &secretEnv{t: t, mode: m, clock: clockwork.NewFakeClockAt(epoch), logs: &syncBuffer{}}
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
	// A rate limit pauses the role for longer than a call's deadline, so
	// the next call fails at once (admission.ErrDeadline) instead of waiting on
	// the fake clock.
	l := endpoint.Limits{RequestTimeout: time.Second, PauseAfterRateLimit: time.Hour}
	spec := endpoint.Spec{Name: "a", URL: endpoint.NewSecret(pl.URL(scheme, hostport)),
		Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: l, endpoint.RoleSend: l}}
	if pl.Headers != nil {
		spec.Headers = map[string]endpoint.Secret{}
		for k, v := range pl.Headers {
			spec.Headers[k] = endpoint.NewSecret(v)
		}
	}
	p, err := admission.New([]endpoint.Spec{spec}, pool.Settings{}, admission.Options{Clock: e.clock, Logger: debugLogger(e.logs)})
	if err != nil {
		t.Fatal(err)
	}
	limit := m.limit
	if limit == 0 {
		limit = 1 << 20
	}
	c := newClient(t, p, conf{MaxResponseBytes: limit, AttemptTimeout: time.Hour, Retry: noRetries,
		Logger: debugLogger(e.logs)})
	t.Cleanup(func() { _ = c.Close() })
	e.pool, e.client = p, c
	return e
}

// run makes one call of role, driving the pool's clock past the
// attempt's timeout when the mode needs it, or past the call's deadline
// when a rate limit has paused the role (the call then waits in the pool,
// with no attempt). A panic's value is returned as an error.
func (e *secretEnv) run(role endpoint.Role, call func(context.Context) error) (err error) {
	e.t.Helper()
	next := 0
	if e.fake != nil {
		next = e.fake.Stats().Requests + 1
	}
	paused := false
	for _, s := range e.pool.Snapshot() {
		paused = paused || s.Role == role && s.State == endpoint.RateLimited
	}
	ch := async(func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		return call(context.Background())
	})
	if e.mode.timeout || paused {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a guard, not a measurement
		defer cancel()
		if !paused {
			if err := e.fake.WaitRequests(ctx, next); err != nil {
				e.t.Fatalf("the server never got request %d: %v", next, err)
			}
		}
		if err := e.clock.BlockUntilContext(ctx, 1); err != nil {
			e.t.Fatalf("no timer on the pool's clock: %v", err)
		}
		e.clock.Advance(time.Second)
	}
	return wait(e.t, ch)
}

// calls makes every kind of call once: a read and a send through
// CallForInto, a callback that quotes the request's URL and headers and
// the response's body, and a read through solana-go's client.
func (e *secretEnv) calls(params []any) []error {
	return []error{
		e.run(endpoint.RoleRead, func(ctx context.Context) error { _, err := getBalance(ctx, e.client); return err }),
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

// outputs renders everything a caller or operator may see: every error
// of the chain under every fmt verb, the RPC errors' fields and the
// attempts; both loggers (text and JSON, debug); every exported value
// that can hold a secret (*admission.Pool, *engine.Client, its specs, the
// snapshot) under every fmt verb, through slog and encoding/json.
func (e *secretEnv) outputs(errs []error) map[string]string {
	out := map[string]string{}
	add := func(where, s string) { out[s] = where }
	verbs := []string{"%v", "%+v", "%#v", "%s", "%q", "%x"}
	render := func(where string, v any) {
		for _, verb := range verbs {
			add(where+" "+verb, fmt.Sprintf(verb, v))
		}
	}
	for i, err := range errs {
		if err == nil {
			continue
		}
		for _, s := range texts(err) {
			add(fmt.Sprintf("error %d", i), s)
		}
		var re *transport.RPCError
		if errors.As(err, &re) {
			add(fmt.Sprintf("error %d RPCError", i), re.Message+"\n"+string(re.Data))
		}
		// solana-go's own error values, as its users read them.
		var sg *jsonrpc.RPCError
		if errors.As(err, &sg) {
			render(fmt.Sprintf("error %d jsonrpc.RPCError", i), sg)
			render(fmt.Sprintf("error %d jsonrpc.RPCError data", i), sg.Data)
			if js, err := json.Marshal(sg); err == nil {
				add(fmt.Sprintf("error %d jsonrpc.RPCError json", i), string(js))
			}
		}
		var he *jsonrpc.HTTPError
		if errors.As(err, &he) {
			render(fmt.Sprintf("error %d jsonrpc.HTTPError", i), he)
		}
		var ce *transport.CallError
		if errors.As(err, &ce) {
			render(fmt.Sprintf("error %d CallError", i), ce)
			render(fmt.Sprintf("error %d attempts", i), ce.Attempts)
		}
	}
	specs := e.pool.Specs()
	snap := e.pool.Snapshot()
	for where, v := range map[string]any{"pool": e.pool, "client": e.client, "specs": specs, "spec": specs[0],
		"*spec": &specs[0], "snapshot": snap} {
		render(where, v)
		if js, err := json.Marshal(v); err == nil {
			add(where+" json", string(js))
		}
	}
	if js, err := json.Marshal(errs); err == nil {
		add("errors json", string(js))
	}
	debugLogger(e.logs).Debug("everything", "pool", e.pool, "client", e.client, "specs", specs, "spec", specs[0],
		"snapshot", snap, "errors", errs)
	add("logs", e.logs.String())
	return out
}

// TestSecretsMatrix: a marker in every URL part and header form, times
// every failure mode, times every output; the marker never shows, in any
// encoding.
func TestSecretsMatrix(t *testing.T) {
	params, _ := signedTx(t, 42)
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
					if m.proof != nil && !m.proof(errs) {
						t.Errorf("the failure mode was not exercised: %v", errs)
					}
					outs := e.outputs(errs)
					for s, where := range outs {
						if form, leaked := fixturedata.FindSecret(s, marker); leaked {
							t.Errorf("%s shows the secret (%s):\n%s", where, form, s)
						}
					}
					cases.Add(1)
					checks.Add(int64(len(outs)))
				})
			}
		}
	})
	t.Logf("%d cases (placement × failure mode), %d distinct outputs checked", cases.Load(), checks.Load())
}

// texts renders err every way a caller might: Error() and every fmt verb,
// for each error reachable through Unwrap.
func texts(err error) []string {
	var out []string
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		out = append(out, e.Error())
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
			out = append(out, fmt.Sprintf(verb, e))
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		}
	}
	walk(err)
	return out
}

// TestEchoedSecretInRPCError: a server that echoes the key it was sent in
// a JSON-RPC error's message and data gets both redacted, and the error
// stays a *transport.RPCError with its code.
func TestEchoedSecretInRPCError(t *testing.T) {
	h := newHostileServer(t)
	c, _ := hostileClient(t, h)
	h.set(answer{body: []byte(`{"jsonrpc":"2.0","id":` + idToken + `,"error":{"code":-32005,` +
		`"message":"no key /` + hostileSecret + `","data":{"path":"/` + hostileSecret + `","numSlotsBehind":3}}}`)})
	_, err := getBalance(context.Background(), c)
	var re *transport.RPCError
	if !errors.As(err, &re) || re.Code != -32005 {
		t.Fatalf("err = %v, want a *transport.RPCError with code -32005", err)
	}
	if strings.Contains(re.Message, hostileSecret) || strings.Contains(string(re.Data), hostileSecret) {
		t.Fatalf("the RPC error carries the secret: %+v, data %s", re, re.Data)
	}
	for _, s := range texts(err) {
		if strings.Contains(s, hostileSecret) {
			t.Fatalf("error text leaks the secret: %s", s)
		}
	}
}

// TestUserInfoIsSentAsBasicAuth: user info in the URL is sent as Basic
// authentication, as http.Client would (attempts call RoundTrip, which
// ignores it); a configured Authorization header wins; the request's URL
// carries no user info; and an echo of the credentials is redacted.
func TestUserInfoIsSentAsBasicAuth(t *testing.T) {
	const user, pass = "alice", "p@ss w:rd/" + marker
	var seen struct {
		sync.Mutex
		auth []string
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Lock()
		seen.auth = append(seen.auth, r.Header.Get("Authorization"))
		seen.Unlock()
		if u, p, ok := r.BasicAuth(); !ok || u != user || p != pass {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		echoID(`"ok"`)(w, r)
	}))
	t.Cleanup(srv.Close)
	withUser := "http://" + url.UserPassword(user, pass).String() + "@" + strings.TrimPrefix(srv.URL, "http://") + "/rpc"
	client := func(t *testing.T, rawURL string, headers map[string]endpoint.Secret) *engine.Engine {
		p, err := admission.New([]endpoint.Spec{{Name: "basic", URL: endpoint.NewSecret(rawURL), Headers: headers,
			Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {}}}}, pool.DefaultSettings(), admission.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := newClient(t, p, conf{Retry: noRetries})
		t.Cleanup(func() { _ = c.Close() })
		return c
	}

	t.Run("user info", func(t *testing.T) {
		c := client(t, withUser, nil)
		var got string
		if err := c.CallForInto(context.Background(), &got, "getHealth", nil); err != nil || got != "ok" {
			t.Fatalf("call = %q, %v; want the endpoint to accept the user info", got, err)
		}
		err := c.CallWithCallback(context.Background(), "getHealth", nil, func(req *http.Request, _ *http.Response) error {
			if req.URL.User != nil {
				t.Errorf("the request URL carries user info")
			}
			// A callback that quotes what it was sent, in every form.
			a := req.Header.Get("Authorization")
			return fmt.Errorf("rejected %s %s %s", a, base64.StdEncoding.EncodeToString([]byte(a)), url.QueryEscape(a))
		})
		if err == nil {
			t.Fatal("the callback's error was lost")
		}
		for _, s := range texts(err) {
			if form, leaked := fixturedata.FindSecret(s, marker); leaked {
				t.Errorf("the credentials show through (%s): %s", form, s)
			}
		}
	})
	t.Run("configured Authorization wins", func(t *testing.T) {
		c := client(t, withUser, map[string]endpoint.Secret{"Authorization": endpoint.NewSecret("Bearer tok")})
		err := c.CallForInto(context.Background(), nil, "getHealth", nil)
		seen.Lock()
		last := seen.auth[len(seen.auth)-1]
		seen.Unlock()
		var se *transport.StatusError
		if !errors.As(err, &se) || se.StatusCode != http.StatusUnauthorized || last != "Bearer tok" {
			t.Fatalf("call = %v, Authorization %q; want the configured header sent (and refused here)", err, last)
		}
	})
}
