package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

func TestRateLimitCoolsDownTheEndpoint(t *testing.T) {
	rec := newRecorder()
	e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 1)}, conf{OnAttempt: rec.on}, nil)
	e.server("a").SetScript(fixtures.FirstN(1, fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 429}))
	ctx := context.Background()
	if _, err := getBalance(ctx, e.client); err != nil {
		t.Fatal(err)
	}
	if got := endpoints(rec.drain()); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("first call: %v", got)
	}
	// a cools down for its PauseAfterRateLimit (1 s): the next calls avoid it.
	e.clock.Advance(endpoint.Limits{}.Normalized().PauseAfterRateLimit - time.Millisecond)
	if _, err := getBalance(ctx, e.client); err != nil {
		t.Fatal(err)
	}
	if got := endpoints(rec.drain()); len(got) != 1 || got[0] != "b" {
		t.Fatalf("during cooldown: %v", got)
	}
	e.clock.Advance(time.Millisecond)
	if _, err := getBalance(ctx, e.client); err != nil {
		t.Fatal(err)
	}
	if got := endpoints(rec.drain()); len(got) != 1 || got[0] != "a" {
		t.Fatalf("after cooldown: %v", got)
	}
}

func TestSharedDeadlineBoundsTheCall(t *testing.T) {
	// a (tier 0) allows 3 s per call, b (tier 1) 1 s: the call's deadline
	// is the pool's default, 1 s, and bounds a's attempt as well.
	a, b := member("a", 0), member("b", 1)
	slow := endpoint.Limits{RequestTimeout: 3 * time.Second}
	a.Read, a.Send = &slow, nil
	a.Options.Script = fixtures.Always(fixtures.Fault{Kind: fixtures.Hang})
	b.Options.Script = fixtures.Always(fixtures.Fault{Kind: fixtures.Hang})
	rec := newRecorder()
	e := newEnv(t, []fixtures.Member{a, b}, conf{OnAttempt: rec.on, AttemptTimeout: time.Hour}, nil)
	start := e.clock.Now()
	ch := async(func() error { _, err := getBalance(context.Background(), e.client); return err })
	e.expire(e.server("a"), 1, time.Second-time.Millisecond)
	select {
	case err := <-ch:
		t.Fatalf("returned before the deadline: %v", err)
	default:
	}
	e.clock.Advance(time.Millisecond)
	err := wait(t, ch)
	ce := callErr(t, err)
	if ce.Cause != retrypolicy.Timeout || len(ce.Attempts) != 1 || ce.Attempts[0].Duration != time.Second {
		t.Fatalf("error %v", err)
	}
	if d := e.clock.Since(start); d != time.Second {
		t.Fatalf("call took %v of the pool's clock, want 1s", d)
	}
	if n := len(e.server("b").Requests()); n != 0 {
		t.Fatalf("b got %d requests after the deadline", n)
	}
}

// TestBackoffWaitsOnThePoolClock: the first retry fails over to b at
// once; the second has to revisit an endpoint that already failed, so it
// waits its backoff on the pool's clock.
func TestBackoffWaitsOnThePoolClock(t *testing.T) {
	rec := newRecorder()
	full := func(ceiling time.Duration) time.Duration { return ceiling }
	e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 0)},
		conf{OnAttempt: rec.on, Retry: func(r *retrypolicy.Settings) {
			r.Jitter, r.InitialBackoff, r.MaxRetries = full, 100*time.Millisecond, 2
		}}, nil)
	e.server("a").SetScript(fixtures.Always(fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 500}))
	e.server("b").SetScript(fixtures.Always(fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 500}))
	ch := async(func() error { _, err := getBalance(context.Background(), e.client); return err })
	first := <-rec.ch
	if first.Decision.Delay != 0 || !first.Decision.Retry {
		t.Fatalf("first decision %+v, want an immediate failover", first.Decision)
	}
	second := <-rec.ch
	if second.Endpoint == first.Endpoint {
		t.Fatalf("retried on the same endpoint %s", second.Endpoint)
	}
	// Both failed: the next retry revisits one, after the backoff of the
	// second counted retry (100ms · 2).
	if second.Decision.Delay != 200*time.Millisecond || !second.Decision.Retry {
		t.Fatalf("second decision %+v, want a retry after 200ms", second.Decision)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.clock.BlockUntilContext(ctx, 1); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(199 * time.Millisecond)
	select {
	case a := <-rec.ch:
		t.Fatalf("third attempt before the backoff ended: %+v", a)
	default:
	}
	e.clock.Advance(time.Millisecond)
	<-rec.ch
	// MaxRetries 2: the third failure ends the call.
	err := wait(t, ch)
	if ce := callErr(t, err); ce.Cause != retrypolicy.TemporaryHTTP || len(ce.Attempts) != 3 ||
		ce.Attempts[2].Decision.Rule != retrypolicy.RuleMaxRetries {
		t.Fatalf("error %v", err)
	}
}

func TestApplicationErrorIsFinal(t *testing.T) {
	a := member("a", 0)
	a.Options.Script = fixtures.Always(fixtures.Fault{Kind: fixtures.RPCError, RPCCode: -32002})
	e := newEnv(t, []fixtures.Member{a, member("b", 0)}, conf{}, nil)
	params, _ := signedTx(t, 7)
	for {
		err := e.client.CallForInto(context.Background(), nil, "sendTransaction", params)
		if err == nil {
			continue // round robin chose b
		}
		var rpcErr *transport.RPCError
		if !errors.As(err, &rpcErr) || rpcErr.Code != -32002 || rpcErr.Message == "" || len(rpcErr.Data) == 0 {
			t.Fatalf("error %v, rpc error %+v", err, rpcErr)
		}
		ce := callErr(t, err)
		if ce.Cause != retrypolicy.RPCApplication || len(ce.Attempts) != 1 || ce.Attempts[0].RPCCode != -32002 ||
			errors.Is(err, engine.ErrAmbiguousDispatch) {
			t.Fatalf("error %v", err)
		}
		return
	}
}

func TestInvalidResponseIsFinal(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 0)}, conf{}, nil)
	var wrong []string
	err := e.client.CallForInto(context.Background(), &wrong, "getBalance", []any{somePubkey})
	ce := callErr(t, err)
	var typeErr *json.UnmarshalTypeError
	if ce.Cause != retrypolicy.InvalidResponse || len(ce.Attempts) != 1 || !errors.As(err, &typeErr) {
		t.Fatalf("error %v", err)
	}
}

// plainEnv is a pool over one plain httptest handler.
func plainEnv(t *testing.T, h http.HandlerFunc, s conf) *engine.Engine {
	t.Helper()
	srv := httptest.NewServer(h)
	p, err := admission.New([]endpoint.Spec{{Name: "plain", URL: endpoint.NewSecret(srv.URL),
		Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {}}}}, pool.DefaultSettings(), admission.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, p, s)
	t.Cleanup(func() {
		_ = c.Close()
		srv.Close()
	})
	return c
}

// echoID answers body with the request's id spliced in.
func echoID(result string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req struct{ ID json.RawMessage }
		_ = json.NewDecoder(r.Body).Decode(&req)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","result":`+result+`,"id":`+string(req.ID)+`}`)
	}
}

func TestNullResultLeavesPointerNil(t *testing.T) {
	c := plainEnv(t, echoID("null"), conf{})
	out := &rpc.GetAccountInfoResult{}
	if err := c.CallForInto(context.Background(), &out, "getAccountInfo", []any{somePubkey.String()}); err != nil {
		t.Fatal(err)
	}
	if out != nil {
		t.Fatalf("out %+v, want nil", out)
	}
}

func TestMissingResultIsMalformed(t *testing.T) {
	c := plainEnv(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1}`)
	}, conf{})
	err := c.CallForInto(context.Background(), nil, "getSlot", nil)
	if ce := callErr(t, err); ce.Cause != retrypolicy.MalformedResponse {
		t.Fatalf("error %v", err)
	}
}

// TestUnknownMethodIsTreatedLikeASend: nothing is known of an undeclared
// method's effects, so it is never resent once a server may have acted,
// and its failure then says so.
func TestUnknownMethodIsTreatedLikeASend(t *testing.T) {
	c := plainEnv(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
	}, conf{})
	err := c.CallForInto(context.Background(), nil, "getAssetz", nil)
	ce := callErr(t, err)
	var se *transport.StatusError
	if len(ce.Attempts) != 1 || ce.Attempts[0].Decision.Rule != retrypolicy.RuleAnsweredMayHaveActed ||
		!errors.As(err, &se) || se.StatusCode != 502 || !errors.Is(err, engine.ErrAmbiguousDispatch) {
		t.Fatalf("error %v", err)
	}
}

func TestCallWithCallback(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0)}, conf{}, nil)
	var slot uint64
	err := e.client.CallWithCallback(context.Background(), "getSlot", nil, func(req *http.Request, resp *http.Response) error {
		var r struct{ Result uint64 }
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			return err
		}
		slot = r.Result
		return nil
	})
	if err != nil || slot != fixturedata.RecordedSlot {
		t.Fatalf("slot %d, err %v", slot, err)
	}
	sentinel := errors.New("callback says no")
	err = e.client.CallWithCallback(context.Background(), "getSlot", nil, func(*http.Request, *http.Response) error { return sentinel })
	if ce := callErr(t, err); ce.Cause != retrypolicy.InvalidResponse || !errors.Is(err, sentinel) {
		t.Fatalf("error %v", err)
	}
}

func TestCallBatch(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0)}, conf{}, nil)
	reqs := jsonrpc.RPCRequests{
		{Method: "getSlot"},
		{Method: "getBalance", Params: []any{somePubkey}},
	}
	resps, err := e.client.CallBatch(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	if len(resps) != 2 {
		t.Fatalf("responses %v", resps)
	}
	byID := resps.AsMap()
	var slot uint64
	if err := json.Unmarshal(byID[0].Result, &slot); err != nil || slot != fixturedata.RecordedSlot {
		t.Fatalf("slot %d, %v", slot, err)
	}
	var bal rpc.GetBalanceResult
	if err := json.Unmarshal(byID[1].Result, &bal); err != nil || bal.Value != fixturedata.RecordedBalance {
		t.Fatalf("balance %+v, %v", bal, err)
	}
	got := e.server("a").Requests()
	if len(got) != 2 || got[0].Batch != 2 {
		t.Fatalf("server saw %+v", got)
	}
	if _, err := e.client.CallBatch(context.Background(), nil); err == nil {
		t.Fatal("empty batch accepted")
	}
}

func TestCallBatchWithSendIsNeverResent(t *testing.T) {
	a := member("a", 0)
	a.Options.Script = fixtures.Always(fixtures.Fault{Kind: fixtures.ResetAfterRead})
	e := newEnv(t, []fixtures.Member{a, member("b", 1)}, conf{}, nil)
	params, sig := signedTx(t, 9)
	_, err := e.client.CallBatch(context.Background(), jsonrpc.RPCRequests{
		{Method: "getSlot"}, {Method: "sendTransaction", Params: params},
	})
	if !errors.Is(err, engine.ErrAmbiguousDispatch) {
		t.Fatalf("error %v", err)
	}
	if n := e.server("b").Deliveries(sig); n != 0 {
		t.Fatalf("resent to b: %d", n)
	}
}

func TestNoEndpointForTheRole(t *testing.T) {
	a := member("a", 0)
	a.Read, a.Send = &endpoint.Limits{}, nil
	e := newEnv(t, []fixtures.Member{a}, conf{}, nil)
	params, _ := signedTx(t, 1)
	err := e.client.CallForInto(context.Background(), nil, "sendTransaction", params)
	if !errors.Is(err, admission.ErrNoEndpoint) || len(callErr(t, err).Attempts) != 0 ||
		!strings.Contains(err.Error(), "pool: sendTransaction: no endpoint serves role send") {
		t.Fatalf("error %v", err)
	}
	if n := len(e.server("a").Requests()); n != 0 {
		t.Fatalf("a got %d requests", n)
	}
}

func TestCallerCancelReleasesThePermit(t *testing.T) {
	a := member("a", 0)
	a.Options.Script = fixtures.Always(fixtures.Fault{Kind: fixtures.Hang})
	e := newEnv(t, []fixtures.Member{a}, conf{}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	ch := async(func() error { _, err := getBalance(ctx, e.client); return err })
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	if err := e.server("a").WaitRequests(wctx, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	err := wait(t, ch)
	ce := callErr(t, err)
	if !errors.Is(err, context.Canceled) || ce.Cause != retrypolicy.Canceled || len(ce.Attempts) != 1 {
		t.Fatalf("error %v", err)
	}
	for _, s := range e.pool.Snapshot() {
		if s.InFlight != 0 {
			t.Fatalf("snapshot %+v: permit not released", s)
		}
	}
}

func TestStricterClassOfABatch(t *testing.T) {
	// Checked through behaviour: a batch of reads is retried elsewhere
	// after a reset; with an undeclared member it is not, and it is
	// ambiguous, as a send would be.
	for _, tc := range []struct {
		name    string
		reqs    jsonrpc.RPCRequests
		retried bool
	}{
		{"reads", jsonrpc.RPCRequests{{Method: "getSlot"}, {Method: "getHealth"}}, true},
		{"with unknown", jsonrpc.RPCRequests{{Method: "getSlot"}, {Method: "getAssetz"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := member("a", 0)
			a.Options.Script = fixtures.Always(fixtures.Fault{Kind: fixtures.ResetAfterRead})
			e := newEnv(t, []fixtures.Member{a, member("b", 1)}, conf{}, nil)
			_, err := e.client.CallBatch(context.Background(), tc.reqs)
			if (err == nil) != tc.retried || (err != nil) != errors.Is(err, engine.ErrAmbiguousDispatch) {
				t.Fatalf("error %v", err)
			}
		})
	}
}

// TestRetryAfterBindsOnlyItsEndpoint: a peer takes the retry at once,
// while the refusing endpoint cools down for the provider's delay; with no
// peer, the retry waits the provider's delay.
func TestRetryAfterBindsOnlyItsEndpoint(t *testing.T) {
	full := func(ceiling time.Duration) time.Duration { return ceiling }
	settings := func(rec *recorder) conf {
		return conf{OnAttempt: rec.on, Retry: func(r *retrypolicy.Settings) { r.Jitter, r.InitialBackoff = full, 100*time.Millisecond }}
	}
	limited := fixtures.Always(fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 429, RetryAfter: "2"})
	longer := func(specs []endpoint.Spec) {
		for i := range specs {
			specs[i].Roles[endpoint.RoleRead] = endpoint.Limits{RequestTimeout: 5 * time.Second}
		}
	}

	rec := newRecorder()
	e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 1)}, settings(rec), longer)
	e.server("a").SetScript(limited)
	ch := async(func() error { _, err := getBalance(context.Background(), e.client); return err })
	if first := <-rec.ch; first.Endpoint != "a" || first.Decision.Delay != 0 {
		t.Fatalf("with a peer: first attempt %+v, want an immediate failover", first)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if second := <-rec.ch; second.Endpoint != "b" || second.Cause != 0 {
		t.Fatalf("second attempt %+v, want a success on b", second)
	}
	if err := wait(t, ch); err != nil {
		t.Fatal(err)
	}

	rec = newRecorder()
	alone := newEnv(t, []fixtures.Member{member("a", 0)}, settings(rec), longer)
	alone.server("a").SetScript(limited)
	ch = async(func() error { _, err := getBalance(context.Background(), alone.client); return err })
	if first := <-rec.ch; first.Decision.Delay != 2*time.Second || !first.Decision.Retry {
		t.Fatalf("alone: first attempt %+v, want a retry after the provider's 2s", first)
	}
	alone.client.Close()
	if err := alone.clock.BlockUntilContext(ctx, 1); err != nil {
		t.Fatal(err)
	}
	alone.clock.Advance(5 * time.Second)
	if err := wait(t, ch); err == nil {
		t.Fatal("alone: a call against an endpoint that always answers 429 succeeded")
	}
}
