package transport_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// marker is the secret planted in URL paths, queries and headers.
const marker = "SeCrEtMaRkEr"

// secretSpecs plants marker in every spec's URL path, query and a header.
func secretSpecs(tlsFor string) func([]endpoint.Spec) {
	return func(specs []endpoint.Spec) {
		for i := range specs {
			u := specs[i].URL.Reveal()
			if specs[i].Name == tlsFor {
				u = "https://" + strings.TrimPrefix(u, "http://")
			}
			specs[i].URL = endpoint.NewSecret(u + "/v1/" + marker + "-path?api-key=" + marker + "-query")
			specs[i].Headers = map[string]endpoint.Secret{"Authorization": endpoint.NewSecret("Bearer " + marker + "-header")}
		}
	}
}

// texts renders err every way a caller might: %v, %+v, %#v, and each
// error reachable through Unwrap.
func texts(err error) []string {
	var out []string
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		out = append(out, fmt.Sprintf("%v", e), fmt.Sprintf("%+v", e), fmt.Sprintf("%#v", e))
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

func TestSecretsNeverEscape(t *testing.T) {
	faults := []fixtures.Fault{
		{Kind: fixtures.HTTPStatus, Status: 429, RetryAfter: "1"},
		{Kind: fixtures.HTTPStatus, Status: 400},
		{Kind: fixtures.HTTPStatus, Status: 503},
		{Kind: fixtures.RPCError, RPCCode: -32005},
		{Kind: fixtures.RPCError, RPCCode: -32002},
		{Kind: fixtures.RPCError, RPCCode: 429},
		{Kind: fixtures.OversizedBody, Size: 4096},
		{Kind: fixtures.Malformed},
		{Kind: fixtures.Truncated},
		{Kind: fixtures.WrongID},
		{Kind: fixtures.ResetOnAccept},
		{Kind: fixtures.ResetAfterRead},
		{Kind: fixtures.Hang},
		{Kind: fixtures.SlowBody, Delay: time.Hour},
	}
	var seen []string
	check := func(where string, s string) {
		t.Helper()
		seen = append(seen, s)
		if strings.Contains(s, marker) {
			t.Errorf("%s leaks the secret: %s", where, s)
		}
	}
	run := func(name string, e *env, timeout bool, call func() error) {
		t.Helper()
		defer func() {
			if r := recover(); r != nil {
				check(name+" panic", fmt.Sprint(r))
			}
		}()
		next := e.server("a").Stats().Requests + 1
		ch := async(call)
		if timeout {
			e.expire(e.server("a"), next, time.Second)
		}
		err := wait(t, ch)
		if err == nil {
			t.Errorf("%s: no error", name)
			return
		}
		for _, s := range texts(err) {
			check(name+" error", s)
		}
	}
	params, _ := signedTx(t, 42)
	for _, f := range faults {
		a := member("a", 0)
		a.Roles[endpoint.RoleRead] = endpoint.Limits{RequestTimeout: time.Second}
		a.Options.Script = fixtures.Always(f)
		e := newEnv(t, []fixtures.Member{a}, transport.Settings{MaxResponseBytes: 1024, AttemptTimeout: -1,
			Retry: retrypolicy.Settings{MaxRetries: -1}}, secretSpecs(""))
		timeout := f.Kind == fixtures.Hang || f.Kind == fixtures.SlowBody
		run(fmt.Sprintf("read %+v", f), e, timeout, func() error {
			_, err := getBalance(context.Background(), e.client)
			return err
		})
		run(fmt.Sprintf("send %+v", f), e, timeout, func() error {
			return e.client.CallForInto(context.Background(), nil, "sendTransaction", params)
		})
		check("logs", e.logs.String())
		check("snapshot", fmt.Sprintf("%+v", e.pool.Snapshot()))
	}
	// Refused, TLS mismatch, bad output type, callback echoing the URL.
	e := newEnv(t, []fixtures.Member{member("a", 0), member("tls", 1)}, transport.Settings{}, secretSpecs("tls"))
	run("bad output", e, false, func() error {
		var wrong []string
		return e.client.CallForInto(context.Background(), &wrong, "getBalance", []any{somePubkey})
	})
	run("callback quoting the URL", e, false, func() error {
		return e.client.CallWithCallback(context.Background(), "getSlot", nil, func(req *http.Request, _ *http.Response) error {
			return fmt.Errorf("bad answer from %s (auth %s)", req.URL, req.Header.Get("Authorization"))
		})
	})
	e.server("a").SetDown(true)
	run("refused then TLS mismatch", e, false, func() error {
		_, err := getBalance(context.Background(), e.client)
		return err
	})
	check("logs", e.logs.String())
	check("snapshot", fmt.Sprintf("%+v", e.pool.Snapshot()))
	if !strings.Contains(strings.Join(seen, "\n"), "tls (tier 1)") {
		t.Error("the TLS mismatch attempt was not exercised")
	}

	// transport.New refuses a nil pool. (An unparsable URL never reaches
	// it: pool.New validates every URL, without quoting it.)
	_, err := transport.New(nil, transport.Settings{})
	if err == nil || errors.Is(err, transport.ErrAmbiguousDispatch) {
		t.Fatalf("New(nil): %v", err)
	}
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
	client := func(t *testing.T, rawURL string, headers map[string]endpoint.Secret) *transport.Client {
		p, err := pool.New([]endpoint.Spec{{Name: "basic", URL: endpoint.NewSecret(rawURL), Headers: headers,
			Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {}}}}, pool.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c, err := transport.New(p, transport.Settings{Retry: retrypolicy.Settings{MaxRetries: -1}})
		if err != nil {
			t.Fatal(err)
		}
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
			if form, leaked := fixtures.FindSecret(s, marker); leaked {
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
