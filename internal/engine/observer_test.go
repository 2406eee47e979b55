package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// tagKey is a context key of one eventObserver: what it stored for the
// call ("call") and the attempt (its endpoint).
type tagKey struct{ name, level string }

// eventObserver writes each event it sees as one line, and checks that
// the contexts it gets back carry what it (and every Observer added
// before it) stored.
type eventObserver struct {
	name   string
	before []string // the Observers added before this one
	mu     sync.Mutex
	events []string
	errs   []string
}

func (o *eventObserver) logf(format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.events = append(o.events, fmt.Sprintf(format, args...))
}

func (o *eventObserver) fail(format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.errs = append(o.errs, fmt.Sprintf(format, args...))
}

// want checks ctx carries the call tag of every Observer up to this one.
func (o *eventObserver) want(ctx context.Context, where string) {
	for _, n := range append(slices.Clone(o.before), o.name) {
		if ctx.Value(tagKey{n, "call"}) != "call" {
			o.fail("%s: %s's call tag missing", where, n)
		}
	}
}

func (o *eventObserver) CallStarted(ctx context.Context, c transport.CallInfo) context.Context {
	for _, n := range o.before {
		if ctx.Value(tagKey{n, "call"}) != "call" {
			o.fail("CallStarted: %s's call tag missing", n)
		}
	}
	o.logf("call %s %s batch=%d", c.Method, c.Role, c.Batch)
	return context.WithValue(ctx, tagKey{o.name, "call"}, "call")
}

func (o *eventObserver) AttemptStarted(ctx context.Context, c transport.CallInfo, a transport.Attempt) context.Context {
	o.want(ctx, "AttemptStarted")
	o.logf("start #%d %s hedge=%v", a.Number, a.Endpoint, a.Hedge)
	return context.WithValue(ctx, tagKey{o.name, "attempt"}, a.Endpoint)
}

func (o *eventObserver) AttemptEnded(ctx context.Context, c transport.CallInfo, a transport.Attempt) {
	o.want(ctx, "AttemptEnded")
	if got := ctx.Value(tagKey{o.name, "attempt"}); got != a.Endpoint {
		o.fail("AttemptEnded(%s): the attempt's context carries %v", a.Endpoint, got)
	}
	o.logf("end %s %s %s", a.Endpoint, causeName(a.Cause), a.Decision.Rule)
}

func (o *eventObserver) CallEnded(ctx context.Context, c transport.CallInfo, r transport.CallResult) {
	o.want(ctx, "CallEnded")
	if ctx.Value(tagKey{o.name, "attempt"}) != nil {
		o.fail("CallEnded: an attempt's context")
	}
	o.logf("done %s attempts=%d ambiguous=%v err=%v", causeName(r.Cause), r.Attempts, r.Ambiguous, r.Err != nil)
}

func causeName(c retrypolicy.Cause) string {
	if c == 0 {
		return "ok"
	}
	return c.String()
}

// check fails t on the errors the observer saw and returns its events.
func (o *eventObserver) check(t *testing.T) []string {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, e := range o.errs {
		t.Error(e)
	}
	return slices.Clone(o.events)
}

func wantEvents(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("events:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// observed adds two chained eventObservers to e's client.
func observed(e *env) (*eventObserver, *eventObserver) {
	one := &eventObserver{name: "one"}
	two := &eventObserver{name: "two", before: []string{"one"}}
	e.client.Observe(one)
	e.client.Observe(nil) // ignored
	e.client.Observe(two)
	return one, two
}

func TestObserversSeeAFailoverInOrder(t *testing.T) {
	var onAttempt []string
	e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 1)}, conf{
		OnAttempt: func(ctx context.Context, _ string, a transport.Attempt) {
			// An Observer's AttemptEnded gets the attempt's context, as
			// every Observer's AttemptStarted left it.
			onAttempt = append(onAttempt, fmt.Sprintf("%s %v %v", a.Endpoint,
				ctx.Value(tagKey{"two", "call"}), ctx.Value(tagKey{"two", "attempt"})))
		}}, nil)
	one, two := observed(e)
	e.server("a").SetFault(fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 503})
	if _, err := getBalance(context.Background(), e.client); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"call getBalance read batch=0",
		"start #1 a hedge=false",
		"end a temporary-http retry",
		"start #2 b hedge=false",
		"end b ok none",
		"done ok attempts=2 ambiguous=false err=false",
	}
	wantEvents(t, one.check(t), want...)
	wantEvents(t, two.check(t), want...)
	wantEvents(t, onAttempt, "a call a", "b call b")
}

func TestObserversSeeAHedgeOverlap(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 0)}, conf{HedgeAfter: hedgeAfter}, nil)
	one, _ := observed(e)
	e.server("a").SetFault(fixtures.Fault{Kind: fixtures.Hang})
	g := guardCtx(t)
	// The first call may go to either: make a the one tried first by
	// letting b refuse nothing and a hang, then look at the events.
	done := async(func() error { _, err := getBalance(context.Background(), e.client); return err })
	if err := e.server("a").WaitRequests(g, 1); err != nil {
		t.Fatal(err)
	}
	if err := e.clock.BlockUntilContext(g, 2); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(hedgeAfter)
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, one.check(t),
		"call getBalance read batch=0",
		"start #1 a hedge=false",
		"start #2 b hedge=true",
		"end a canceled superseded",
		"end b ok none",
		"done ok attempts=2 ambiguous=false err=false")
}

func TestObserversSeeAnAmbiguousSend(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("bad", 0), member("good", 1)}, conf{}, nil)
	one, _ := observed(e)
	e.server("bad").SetFault(fixtures.Fault{Kind: fixtures.ResetAfterRead})
	params, _ := signedTx(t, 900)
	var sig solana.Signature
	err := e.client.CallForInto(context.Background(), &sig, "sendTransaction", params)
	if !errors.Is(err, engine.ErrAmbiguousDispatch) {
		t.Fatalf("error %v, want ErrAmbiguousDispatch", err)
	}
	wantEvents(t, one.check(t),
		"call sendTransaction send batch=0",
		"start #1 bad hedge=false",
		"end bad connection maybe-dispatched",
		"done connection attempts=1 ambiguous=true err=true")
}

func TestObserversSeeACallAdmittedNowhere(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0)}, conf{}, nil)
	one, _ := observed(e)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := getBalance(ctx, e.client); err == nil {
		t.Fatal("a canceled call succeeded")
	}
	wantEvents(t, one.check(t),
		"call getBalance read batch=0",
		"done canceled attempts=0 ambiguous=false err=true")
}

func TestCallRecordOnEveryEntryPoint(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 1)}, conf{}, nil)
	e.server("a").SetFault(fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 503})
	calls := map[string]func(ctx context.Context) error{
		"CallForInto": func(ctx context.Context) error { _, err := getBalance(ctx, e.client); return err },
		"CallWithCallback": func(ctx context.Context) error {
			return e.client.CallWithCallback(ctx, "getHealth", nil, func(*http.Request, *http.Response) error { return nil })
		},
		"CallBatch": func(ctx context.Context) error {
			_, err := e.client.CallBatch(ctx, jsonrpc.RPCRequests{{Method: "getHealth"}, {Method: "getSlot"}})
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			var rec solroute.CallRecord
			if err := call(engine.WithObserver(context.Background(), &rec)); err != nil {
				t.Fatal(err)
			}
			cs := rec.Calls()
			if len(cs) != 1 || cs[0].Err != nil || cs[0].Duration < 0 {
				t.Fatalf("calls %+v, want one successful call", cs)
			}
			as := cs[0].Attempts
			if got := endpoints(as); !slices.Equal(got, []string{"a", "b"}) ||
				as[0].Cause != retrypolicy.TemporaryHTTP || as[0].HTTPStatus != 503 || !as[0].Decision.Retry ||
				as[0].Dispatch != retrypolicy.Answered || as[1].Cause != 0 || as[0].Timeout <= 0 {
				t.Fatalf("attempts %+v, want a's 503 retried, then b answering", as)
			}
			if got := rec.Attempts(); len(got) != 2 {
				t.Fatalf("Attempts() = %d, want 2", len(got))
			}
		})
	}
}

func TestCallRecordKeepsFailedCallsAndIsACopy(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0)}, conf{Retry: noRetries}, nil)
	e.server("a").SetFault(fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 503})
	var rec solroute.CallRecord
	ctx := engine.WithObserver(context.Background(), &rec)
	for range 2 {
		if _, err := getBalance(ctx, e.client); err == nil {
			t.Fatal("a 503 succeeded")
		}
	}
	cs := rec.Calls()
	var ce *transport.CallError
	if len(cs) != 2 || !errors.As(cs[1].Err, &ce) || len(cs[1].Attempts) != 1 {
		t.Fatalf("calls %+v, want two failed calls of one attempt", cs)
	}
	cs[0].Attempts[0].Endpoint = "changed"
	if rec.Calls()[0].Attempts[0].Endpoint != "a" {
		t.Fatal("Calls returned the record's own slices")
	}
}

func TestAttemptWaitIsTheAdmissionWait(t *testing.T) {
	m := member("a", 0)
	l := *m.Read
	l.RequestsPerSecond, l.BurstCapacity = 2, 1
	m.Read = &l
	rec := newRecorder()
	e := newEnv(t, []fixtures.Member{m}, conf{OnAttempt: rec.on}, nil)
	if _, err := getBalance(context.Background(), e.client); err != nil {
		t.Fatal(err)
	}
	g := guardCtx(t)
	done := async(func() error { _, err := getBalance(context.Background(), e.client); return err })
	if err := e.clock.BlockUntilContext(g, 1); err != nil { // the pool's wait for a token
		t.Fatal(err)
	}
	e.clock.Advance(500 * time.Millisecond)
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	as := rec.drain()
	if len(as) != 2 || as[0].Wait != 0 || as[1].Wait != 500*time.Millisecond {
		t.Fatalf("waits %v and %v, want 0 and the 500 ms refill", as[0].Wait, as[1].Wait)
	}
}

// TestObserverSeesSecretFreeAttempts: what an Observer is given names
// endpoints only.
func TestObserverSeesSecretFreeAttempts(t *testing.T) {
	const marker = "obsSECRETmarker"
	e := newEnv(t, []fixtures.Member{member("a", 0)}, conf{Retry: noRetries}, func(specs []endpoint.Spec) {
		specs[0].URL = endpoint.NewSecret(specs[0].URL.Reveal() + "/" + marker + "?key=" + marker)
		specs[0].Headers = map[string]endpoint.Secret{"Authorization": endpoint.NewSecret("Bearer " + marker)}
	})
	var seen []any
	var mu sync.Mutex
	e.client.Observe(funcObserver(func(v any) { mu.Lock(); seen = append(seen, v); mu.Unlock() }))
	e.server("a").SetFault(fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 500})
	_, _ = getBalance(context.Background(), e.client)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 4 {
		t.Fatalf("saw %d events", len(seen))
	}
	for _, v := range seen {
		b, _ := json.Marshal(v)
		if s := fmt.Sprintf("%+v %#v %s", v, v, b); strings.Contains(s, marker) {
			t.Fatalf("an Observer was given a secret: %s", s)
		}
	}
}

// funcObserver hands every value an Observer is given to f.
type funcObserver func(v any)

func (f funcObserver) CallStarted(ctx context.Context, c transport.CallInfo) context.Context {
	f(c)
	return ctx
}

func (f funcObserver) AttemptStarted(ctx context.Context, c transport.CallInfo, a transport.Attempt) context.Context {
	f(a)
	return ctx
}

func (f funcObserver) AttemptEnded(_ context.Context, _ transport.CallInfo, a transport.Attempt) {
	f(a)
}

func (f funcObserver) CallEnded(_ context.Context, _ transport.CallInfo, r transport.CallResult) {
	f(r)
	if r.Err != nil {
		f(r.Err.Error())
	}
}

func TestCallInfoSaysWhetherTheRegistryKnowsTheMethod(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0)}, conf{Retry: noRetries}, nil)
	var mu sync.Mutex
	known := map[string]bool{}
	e.client.Observe(funcObserver(func(v any) {
		if c, ok := v.(transport.CallInfo); ok {
			mu.Lock()
			known[c.Method] = c.Known
			mu.Unlock()
		}
	}))
	_, _ = getBalance(context.Background(), e.client)
	_ = e.client.CallForInto(context.Background(), nil, "getNoSuchThing", nil)
	_, _ = e.client.CallBatch(context.Background(), jsonrpc.RPCRequests{{Method: "getNoSuchThing"}})
	mu.Lock()
	defer mu.Unlock()
	if !known["getBalance"] || known["getNoSuchThing"] || !known["batch"] || len(known) != 3 {
		t.Fatalf("known %v, want getBalance and batch only", known)
	}
}
