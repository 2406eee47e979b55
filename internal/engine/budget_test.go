package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// blobServer answers every call with a result string padded to the size
// its first param asks ("N", or "N/chunked" for a body without a
// Content-Length, sent in chunks), written from one shared slice so that
// the server allocates no body of its own. It counts the sends it read.
type blobServer struct {
	blob  []byte
	sends atomic.Int32
}

func newBlobServer() *blobServer {
	return &blobServer{blob: []byte(strings.Repeat("x", 1<<20))}
}

func (s *blobServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage
		Method string
		Params []string
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Params) == 0 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	if req.Method == "sendTransaction" {
		s.sends.Add(1)
	}
	spec, chunked := strings.CutSuffix(req.Params[0], "/chunked")
	size, _ := strconv.Atoi(spec)
	prefix := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":"`
	const suffix = `"}`
	pad := max(size-len(prefix)-len(suffix), 0)
	if !chunked {
		w.Header().Set("Content-Length", strconv.Itoa(len(prefix)+pad+len(suffix)))
	}
	_, _ = w.Write([]byte(prefix))
	if chunked {
		w.(http.Flusher).Flush()
	}
	for off := 0; off < pad; off += len(s.blob) { // chunks of 1 MiB at most
		_, _ = w.Write(s.blob[:min(len(s.blob), pad-off)])
		if chunked {
			w.(http.Flusher).Flush()
		}
	}
	_, _ = w.Write([]byte(suffix))
}

// budgetEnv is n endpoints (read and send) of one blobServer, a pool on a
// fake clock that no test advances (no attempt times out) and an engine
// with c.
func budgetEnv(t *testing.T, n int, srv *blobServer, c conf) *engine.Engine {
	t.Helper()
	var specs []endpoint.Spec
	for i := range n {
		hs := httptest.NewServer(srv)
		t.Cleanup(hs.Close)
		specs = append(specs, endpoint.Spec{Name: "ep-" + strconv.Itoa(i), URL: endpoint.NewSecret(hs.URL),
			Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {}, endpoint.RoleSend: {}}})
	}
	p, err := admission.New(specs, pool.DefaultSettings(), admission.Options{Clock: clockwork.NewFakeClockAt(epoch)})
	if err != nil {
		t.Fatal(err)
	}
	e := newClient(t, p, c)
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// ignored decodes any result into nothing.
type ignored struct{}

func (*ignored) UnmarshalJSON([]byte) error { return nil }

// heldOut is a result whose decode waits until release is closed, after
// telling decoding: its body stays held (and charged) meanwhile.
type heldOut struct{}

// heldHooks is the hold a heldOut decode waits on: the test's own, set
// by holdOne (tests that hold do not run in parallel).
var heldHooks atomic.Pointer[hold]

// hold is the channel pair a heldOut decode uses.
type hold struct {
	decoding chan struct{}
	release  chan struct{}
}

func (*heldOut) UnmarshalJSON([]byte) error {
	if h := heldHooks.Load(); h != nil {
		h.decoding <- struct{}{}
		<-h.release
	}
	return nil
}

// holdOne starts a read of size bytes whose decode is held, waits until
// its body is read and charged, and returns the function that lets it
// finish (and checks it succeeded).
func holdOne(t *testing.T, e *engine.Engine, size string) func() {
	t.Helper()
	h := &hold{decoding: make(chan struct{}), release: make(chan struct{})}
	heldHooks.Store(h)
	done := async(func() error {
		return e.CallForInto(context.Background(), new(heldOut), "getTransaction", []any{size})
	})
	select {
	case <-h.decoding:
	case err := <-done:
		t.Fatalf("held read ended: %v", err)
	}
	return func() {
		close(h.release)
		if err := wait(t, done); err != nil {
			t.Fatalf("held read: %v", err)
		}
		heldHooks.Store(nil)
	}
}

// assertBusy checks err is a busy refusal of method naming the numbers.
func assertBusy(t *testing.T, err error, method string) *transport.CallError {
	t.Helper()
	ce := callErr(t, err)
	msg := err.Error()
	if !errors.Is(err, engine.ErrBusy) || !strings.Contains(msg, "response byte budget full: "+method+" wanted ") ||
		!strings.Contains(msg, " available ") || !strings.Contains(msg, " of limit ") || strings.Contains(msg, "http://") {
		t.Fatalf("not a busy refusal of %s: %v", method, err)
	}
	last := ce.Attempts[len(ce.Attempts)-1]
	if last.Fault != retrypolicy.LocalFault {
		t.Fatalf("fault %v, want local: %+v", last.Fault, err)
	}
	return ce
}

const mib = 1 << 20

// TestBudgetRefusesChunkedBodyAsRead: a body with no Content-Length is
// charged as it is read; the chunk that does not fit refuses it at once
// (ErrBusy, one attempt, no retry elsewhere, nothing charged after), and
// one that fits is read whole and released.
func TestBudgetRefusesChunkedBodyAsRead(t *testing.T) {
	e := budgetEnv(t, 3, newBlobServer(), conf{ResponseBudget: 64 * mib})
	done := holdOne(t, e, strconv.Itoa(56*mib)) // Content-Length: charged before it is read
	if u := e.ResponseBudget(); u.Used != 56*mib || u.Limit != 64*mib {
		t.Fatalf("held 56 MiB: usage %+v", u)
	}
	ctx := context.Background()
	err := e.CallForInto(ctx, new(ignored), "getTransaction", []any{strconv.Itoa(16*mib) + "/chunked"})
	ce := assertBusy(t, err, "getTransaction")
	if len(ce.Attempts) != 1 || ce.Attempts[0].Decision.Rule != retrypolicy.RuleBusy || ce.Ambiguous {
		t.Fatalf("refused read: %+v", err)
	}
	if u := e.ResponseBudget(); u.Used != 56*mib || u.Refused != 1 {
		t.Fatalf("after the refusal: usage %+v", u)
	}
	if err := e.CallForInto(ctx, new(ignored), "getTransaction", []any{strconv.Itoa(4*mib) + "/chunked"}); err != nil {
		t.Fatalf("4 MiB chunked read into 8 MiB free: %v", err)
	}
	done()
	if u := e.ResponseBudget(); u.Used != 0 || u.Refused != 1 {
		t.Fatalf("at rest: usage %+v", u)
	}
}

// TestBudgetSendRefusedBeforeDispatch: a send whose reserve does not fit
// is refused before it is sent: not ambiguous, never delivered.
func TestBudgetSendRefusedBeforeDispatch(t *testing.T) {
	srv := newBlobServer()
	e := budgetEnv(t, 2, srv, conf{ResponseBudget: mib, MaxResponseBytes: mib})
	done := holdOne(t, e, strconv.Itoa(mib-32<<10)) // 32 KiB free, under the 64 KiB reserve
	err := e.CallForInto(context.Background(), new(ignored), "sendTransaction", []any{"100"})
	ce := assertBusy(t, err, "sendTransaction")
	if ce.Ambiguous || errors.Is(err, engine.ErrAmbiguousDispatch) || len(ce.Attempts) != 1 ||
		ce.Attempts[0].Dispatch != retrypolicy.NotDispatched || ce.Attempts[0].Decision.Rule != retrypolicy.RuleBusy {
		t.Fatalf("send refused before dispatch: %+v", err)
	}
	done()
	if n := srv.sends.Load(); n != 0 {
		t.Fatalf("delivered %d times, want 0", n)
	}
}

// TestBudgetSendRefusedAfterDispatchIsAmbiguous: a send whose answer
// (over its reserve) does not fit is refused after it was dispatched:
// ambiguous, delivered once, never resent to the other endpoint.
func TestBudgetSendRefusedAfterDispatchIsAmbiguous(t *testing.T) {
	srv := newBlobServer()
	e := budgetEnv(t, 2, srv, conf{ResponseBudget: mib, MaxResponseBytes: mib})
	done := holdOne(t, e, strconv.Itoa(mib-100<<10)) // 100 KiB free: the reserve fits, a 200 KiB answer does not
	err := e.CallForInto(context.Background(), new(ignored), "sendTransaction", []any{strconv.Itoa(200 << 10)})
	ce := assertBusy(t, err, "sendTransaction")
	if !ce.Ambiguous || !errors.Is(err, engine.ErrAmbiguousDispatch) || len(ce.Attempts) != 1 ||
		ce.Attempts[0].Decision.Rule != retrypolicy.RuleAnsweredMayHaveActed {
		t.Fatalf("send refused after dispatch: %+v", err)
	}
	done()
	if n := srv.sends.Load(); n != 1 {
		t.Fatalf("delivered %d times, want 1", n)
	}
	if u := e.ResponseBudget(); u.Used != 0 {
		t.Fatalf("at rest: usage %+v", u)
	}
}

// TestBudgetChargesCallbacks: the callback path charges and releases the
// same budget: an answer over the free budget is refused before the
// callback runs; a chunked one is charged as the callback reads it.
func TestBudgetChargesCallbacks(t *testing.T) {
	e := budgetEnv(t, 1, newBlobServer(), conf{ResponseBudget: 64 * mib})
	ctx := context.Background()
	done := holdOne(t, e, strconv.Itoa(60*mib))
	called := false
	err := e.CallWithCallback(ctx, "getTransaction", []any{strconv.Itoa(8 * mib)}, func(*http.Request, *http.Response) error {
		called = true
		return nil
	})
	assertBusy(t, err, "getTransaction")
	if called {
		t.Fatal("the callback ran on a refused answer")
	}
	done()
	err = e.CallWithCallback(ctx, "getTransaction", []any{strconv.Itoa(8*mib) + "/chunked"}, func(_ *http.Request, r *http.Response) error {
		// Only what was read to find an endpoint's refusal (16 KiB, and
		// the read that crossed it) is charged before the callback reads.
		if u := e.ResponseBudget(); u.Used > 32<<10 {
			t.Errorf("callback before reading: usage %+v", u)
		}
		var v json.RawMessage
		if err := json.NewDecoder(r.Body).Decode(&v); err != nil {
			return err
		}
		if u := e.ResponseBudget(); u.Used < 8*mib {
			t.Errorf("callback after reading 8 MiB: usage %+v", u)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if u := e.ResponseBudget(); u.Used != 0 || u.Refused != 1 {
		t.Fatalf("at rest: usage %+v", u)
	}
}

// TestBudgetUnderLargestResponseRefused: a budget under one largest
// response is a settings error before any request, naming the key.
func TestBudgetUnderLargestResponseRefused(t *testing.T) {
	p, err := admission.New([]endpoint.Spec{{Name: "a", URL: endpoint.NewSecret("http://127.0.0.1:1"),
		Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {}}}}, pool.DefaultSettings(), admission.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []conf{{ResponseBudget: 32 * mib}, {ResponseBudget: mib, MaxResponseBytes: 2 * mib}, {ResponseBudget: -1}} {
		s, o := c.build()
		if _, err := engine.New(p, s, o); err == nil || !strings.Contains(err.Error(), "response_budget_bytes") {
			t.Errorf("budget %d, largest response %d: error %v", c.ResponseBudget, c.MaxResponseBytes, err)
		}
	}
	s, o := conf{ResponseBudget: 2 * mib, MaxResponseBytes: 2 * mib}.build()
	e, err := engine.New(p, s, o)
	if err != nil {
		t.Fatal(err)
	}
	_ = e.Close()
	if u := e.ResponseBudget(); u.Limit != 2*mib {
		t.Errorf("limit %d, want 2 MiB", u.Limit)
	}
}
