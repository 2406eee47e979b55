package tracing_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/transport"
)

// gate is a loopback proxy in front of an endpoint that holds each
// request until released; arrived receives one value per request held.
type gate struct {
	arrived chan struct{}
	release chan struct{}
}

func newGate(t *testing.T) *gate {
	return &gate{arrived: make(chan struct{}, 16), release: make(chan struct{})}
}

func (g *gate) wrap(t *testing.T, target string) string {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.arrived <- struct{}{}
		select {
		case <-g.release:
		case <-r.Context().Done():
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestHedgeThatLosesKeepsCallRecordOrder: a's answer is held past HedgeAfter, the
// hedge goes to b, which hangs; then a answers and wins. The hedge, #2
// on b, is the loser: decision superseded, cause canceled, no error
// status; a CallRecord on the same call lists #1 then #2 ("in order").
func TestHedgeThatLosesKeepsCallRecordOrder(t *testing.T) {
	g := newGate(t)
	e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 0)}, conf{HedgeAfter: hedgeAfter,
		Edit: func(specs []endpoint.Spec) {
			for i := range specs {
				if specs[i].Name == "a" {
					specs[i].URL = endpoint.NewSecret(g.wrap(t, specs[i].URL.Reveal()))
				}
			}
		}})
	e.server("b").SetFault(fixtures.Fault{Kind: fixtures.Hang})
	p := &protoObs{}
	e.client.Observe(p)
	var rec solroute.CallRecord
	ctx, caller := e.caller()
	ctx = solroute.WithObserver(ctx, &rec)
	guard := guardCtx(t)
	done := async(func() error { return getBalance(ctx, e.client) })
	select {
	case <-g.arrived:
	case <-guard.Done():
		t.Fatal("a never asked")
	}
	if err := e.clock.BlockUntilContext(guard, 2); err != nil { // a's attempt timer, the hedge's
		t.Fatal(err)
	}
	e.clock.Advance(hedgeAfter)
	if err := e.server("b").WaitRequests(guard, 1); err != nil {
		t.Fatal(err)
	}
	close(g.release)
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	caller.End()

	call, a, b := e.tree().hedgedPair()
	wantAttrs(t, call, map[string]string{"solroute.attempts": "2"})
	wantAttrs(t, a, map[string]string{"solroute.hedge": "false", "solroute.decision": "none", "solroute.cause": "none"})
	wantAttrs(t, b, map[string]string{"solroute.hedge": "true", "solroute.decision": "superseded", "solroute.cause": "canceled"})
	var nums []int
	for _, at := range rec.Attempts() {
		nums = append(nums, at.Number)
	}
	if len(nums) != 2 || nums[0] != 1 || nums[1] != 2 {
		t.Errorf("CallRecord attempts by number %v, want [1 2]: \"Attempts lists every attempt in order\"", nums)
	}
	p.check(t)
}

// TestHedgeAutoSpans: TestHedgeSpans at HedgeAuto (the cold delay,
// nothing known of the latency): the same pair of spans.
func TestHedgeAutoSpans(t *testing.T) {
	// A request timeout of 4 s: the attempt's fixed bound (2 s) is past
	// the cold hedge delay (with 1 s both fall at 500 ms).
	slow := func(name string) fixtures.Member {
		l := endpoint.Limits{RequestTimeout: 4 * time.Second}
		return fixtures.Member{Name: name, Read: &l, Send: &l}
	}
	e := newEnv(t, []fixtures.Member{slow("a"), slow("b")}, conf{HedgeAfter: transport.HedgeAuto})
	e.server("a").SetFault(fixtures.Fault{Kind: fixtures.Hang})
	p := &protoObs{}
	e.client.Observe(p)
	ctx, caller := e.caller()
	g := guardCtx(t)
	done := async(func() error { return getBalance(ctx, e.client) })
	if err := e.server("a").WaitRequests(g, 1); err != nil {
		t.Fatal(err)
	}
	if err := e.clock.BlockUntilContext(g, 2); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(engine.HedgeAutoCold)
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	caller.End()
	_, a, b := e.tree().hedgedPair()
	wantAttrs(t, a, map[string]string{"solroute.hedge": "false", "solroute.decision": "superseded", "solroute.cause": "canceled"})
	wantAttrs(t, b, map[string]string{"solroute.hedge": "true", "solroute.decision": "none", "solroute.cause": "none"})
	p.check(t)
}

// protoObs checks one AttemptEnded per AttemptStarted, each with its own
// context, and CallResult.Attempts.
type protoObs struct {
	mu      sync.Mutex
	started map[int]bool
	ended   map[int]bool
	errs    []string
}

type protoObsKey struct{}

func (p *protoObs) CallStarted(ctx context.Context, _ transport.CallInfo) context.Context { return ctx }
func (p *protoObs) AttemptStarted(ctx context.Context, _ transport.CallInfo, a transport.Attempt) context.Context {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started == nil {
		p.started, p.ended = map[int]bool{}, map[int]bool{}
	}
	p.started[a.Number] = true
	return context.WithValue(ctx, protoObsKey{}, a.Number)
}
func (p *protoObs) AttemptEnded(ctx context.Context, _ transport.CallInfo, a transport.Attempt) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n, _ := ctx.Value(protoObsKey{}).(int); n != a.Number || !p.started[a.Number] || p.ended[a.Number] {
		p.errs = append(p.errs, fmt.Sprintf("AttemptEnded #%d: context of #%d, started %v, ended before %v", a.Number, n, p.started[a.Number], p.ended[a.Number]))
	}
	p.ended[a.Number] = true
}
func (p *protoObs) CallEnded(_ context.Context, _ transport.CallInfo, r transport.CallResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.Attempts != len(p.started) || len(p.ended) != len(p.started) {
		p.errs = append(p.errs, fmt.Sprintf("CallEnded: Attempts %d, %d started, %d ended", r.Attempts, len(p.started), len(p.ended)))
	}
}
func (p *protoObs) check(t *testing.T) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.errs {
		t.Error(e)
	}
}
