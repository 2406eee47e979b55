package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
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
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// slowServer answers every request with an empty array after d on clock,
// and counts the requests.
type slowServer struct {
	srv      *httptest.Server
	requests atomic.Int64
}

func newSlowServer(t *testing.T, clock clockwork.Clock, d time.Duration) *slowServer {
	s := &slowServer{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		body, _ := io.ReadAll(r.Body)
		var reqs []struct{ ID json.RawMessage }
		batch := len(body) > 0 && body[0] == '['
		if batch {
			_ = json.Unmarshal(body, &reqs)
		} else {
			reqs = make([]struct{ ID json.RawMessage }, 1)
			_ = json.Unmarshal(body, &reqs[0])
		}
		select {
		case <-clock.After(d):
		case <-r.Context().Done():
			return
		}
		out := make([]map[string]any, len(reqs))
		for i, q := range reqs {
			out[i] = map[string]any{"jsonrpc": "2.0", "id": q.ID, "result": []any{}}
		}
		w.Header().Set("Content-Type", "application/json")
		if batch {
			_ = json.NewEncoder(w).Encode(out)
		} else {
			_ = json.NewEncoder(w).Encode(out[0])
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// slowClient is a client over srv with the default request_timeout (10 s)
// and registry reg (nil: the default), on a fake clock.
func slowClient(t *testing.T, srv *slowServer, clock clockwork.Clock, reg *methods.Registry) *engine.Engine {
	spec := endpoint.Spec{Name: "a", URL: endpoint.NewSecret(srv.srv.URL),
		Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {}}}
	p, err := admission.New([]endpoint.Spec{spec}, pool.DefaultSettings(), admission.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, p, conf{Registry: reg})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestHeavyMethodOutlivesTheRequestTimeout: getProgramAccounts answered
// at 12 s, past the endpoints' default 10 s request_timeout, succeeds at
// the first attempt through solana-go's client (the heavy methods' budget,
// the heavy methods' two minutes); so does a batch holding one. A light
// method at 12 s still fails at 10 s.
func TestHeavyMethodOutlivesTheRequestTimeout(t *testing.T) {
	const answer = 12 * time.Second
	cases := []struct {
		name string
		call func(c *engine.Engine) error
		ok   bool
	}{
		{"getProgramAccounts", func(c *engine.Engine) error {
			_, err := rpc.NewWithCustomRPCClient(c).GetProgramAccounts(context.Background(), somePubkey)
			return err
		}, true},
		{"batch", func(c *engine.Engine) error {
			_, err := c.CallBatch(context.Background(), jsonrpc.RPCRequests{
				{Method: "getSlot"}, {Method: "getProgramAccounts", Params: []any{somePubkey}}})
			return err
		}, true},
		{"getBalance", func(c *engine.Engine) error { return c.CallForInto(context.Background(), nil, "getBalance", nil) }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := clockwork.NewFakeClockAt(epoch)
			srv := newSlowServer(t, clock, answer)
			c := slowClient(t, srv, clock, nil)
			done := async(func() error { return tc.call(c) })
			// The server's wait and the attempt's timer.
			if err := clock.BlockUntilContext(guardCtx(t), 2); err != nil {
				t.Fatal(err)
			}
			clock.Advance(endpoint.Limits{}.Normalized().RequestTimeout)
			if tc.ok {
				clock.Advance(answer - endpoint.Limits{}.Normalized().RequestTimeout)
			}
			err := wait(t, done)
			if (err == nil) != tc.ok {
				t.Fatalf("answered at %v: err %v", answer, err)
			}
			if n := srv.requests.Load(); n != 1 {
				t.Fatalf("sent %d times", n)
			}
		})
	}
}

// TestMethodTimeoutOverrides: a method's own timeout (as [methods.NAME]
// timeout sets it) replaces the endpoints' request_timeout both ways: a
// light method given 20 s is answered at 12 s; getProgramAccounts given
// 5 s fails at 5 s with a Timeout.
func TestMethodTimeoutOverrides(t *testing.T) {
	read := func(d time.Duration) methods.Method {
		return methods.Method{Role: endpoint.RoleRead, Class: retrypolicy.Idempotent, Timeout: d}
	}
	reg := declared(t, methods.Default(), named("getBalance", read(20*time.Second)), named("getProgramAccounts", read(5*time.Second)))
	for _, tc := range []struct {
		method string
		at     time.Duration
		ok     bool
	}{{"getBalance", 12 * time.Second, true}, {"getProgramAccounts", 5 * time.Second, false}} {
		t.Run(tc.method, func(t *testing.T) {
			clock := clockwork.NewFakeClockAt(epoch)
			srv := newSlowServer(t, clock, 12*time.Second)
			c := slowClient(t, srv, clock, reg)
			done := async(func() error { return c.CallForInto(context.Background(), nil, tc.method, nil) })
			if err := clock.BlockUntilContext(guardCtx(t), 2); err != nil {
				t.Fatal(err)
			}
			pendingAfter(t, &env{t: t, clock: clock}, done, 2, tc.at-time.Millisecond)
			clock.Advance(time.Millisecond)
			err := wait(t, done)
			if (err == nil) != tc.ok {
				t.Fatalf("at %v: err %v", tc.at, err)
			}
			var ce *transport.CallError
			if !tc.ok && (!errors.As(err, &ce) || ce.Cause != retrypolicy.Timeout || len(ce.Attempts) != 1) {
				t.Fatalf("err %v: want one attempt's Timeout", err)
			}
		})
	}
}

// TestHeavyMethodThroughFixtures: the fixtures' getMultipleAccounts, on
// the pool's clock, answered at 30 s: one attempt, past the 10 s
// request_timeout.
func TestHeavyMethodThroughFixtures(t *testing.T) {
	a := longMember("a", 0)
	a.Options.Script = fixtures.Always(fixtures.Fault{Delay: 30 * time.Second})
	e := newEnvOneClock(t, []fixtures.Member{a}, conf{})
	done := async(func() error {
		var out rpc.GetMultipleAccountsResult
		return e.client.CallForInto(context.Background(), &out, "getMultipleAccounts", []any{[]string{somePubkey.String()}})
	})
	if err := e.server("a").WaitRequests(guardCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	pendingAfter(t, e, done, 2, 30*time.Second-time.Millisecond)
	e.clock.Advance(time.Millisecond)
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
}
