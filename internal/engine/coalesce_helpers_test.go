package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/transport"
)

// holdServer is a loopback JSON-RPC endpoint that counts requests by
// method and holds every answer until the test releases it (or the
// request is canceled): the event a test waits on is each arrival, never
// time.
type holdServer struct {
	srv     *httptest.Server
	arrived chan heldRequest
	// tokens lets one answer out each; release lets every one out.
	tokens  chan struct{}
	release chan struct{}
	once    sync.Once
	mu      sync.Mutex
	counts  map[string]int
	// slots are the context slots of successive answers (the last one
	// repeats); answered counts the answers given.
	slots    []uint64
	answered int
}

// heldRequest is what the server read of one request.
type heldRequest struct {
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
	Params json.RawMessage `json:"params"`
}

func newHoldServer(t *testing.T, slots ...uint64) *holdServer {
	t.Helper()
	if len(slots) == 0 {
		slots = []uint64{1000}
	}
	h := &holdServer{arrived: make(chan heldRequest, 1024), tokens: make(chan struct{}, 1024), release: make(chan struct{}), counts: map[string]int{}, slots: slots}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(func() { h.open(); h.srv.Close() })
	return h
}

func (h *holdServer) serve(w http.ResponseWriter, r *http.Request) {
	var req heldRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.counts[req.Method]++
	h.mu.Unlock()
	h.arrived <- req
	select {
	case <-h.tokens:
	case <-h.release:
	case <-r.Context().Done():
		return
	}
	h.mu.Lock()
	slot := h.slots[min(h.answered, len(h.slots)-1)]
	h.answered++
	h.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, resultOf(req, slot))
}

// resultOf is the answer to req at slot.
func resultOf(req heldRequest, slot uint64) string {
	switch req.Method {
	case "sendTransaction":
		var p []json.RawMessage
		_ = json.Unmarshal(req.Params, &p)
		return `"sig-` + fmt.Sprint(len(p)) + `"`
	case "getSlot":
		return fmt.Sprint(slot)
	case "getAccountInfo":
		return fmt.Sprintf(`{"context":{"slot":%d},"value":null}`, slot)
	}
	return fmt.Sprintf(`{"context":{"slot":%d},"value":{"blockhash":"EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N","lastValidBlockHeight":%d}}`, slot, slot+150)
}

// let lets n answers out, held or to come.
func (h *holdServer) let(n int) {
	for range n {
		h.tokens <- struct{}{}
	}
}

// open releases every answer, held and to come.
func (h *holdServer) open() { h.once.Do(func() { close(h.release) }) }

// count is the number of requests of method the server read.
func (h *holdServer) count(method string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.counts[method]
}

// waitArrivals waits until n more requests arrived and returns them.
func (h *holdServer) waitArrivals(t *testing.T, n int) []heldRequest {
	t.Helper()
	ctx := guardCtx(t)
	out := make([]heldRequest, 0, n)
	for range n {
		select {
		case r := <-h.arrived:
			out = append(out, r)
		case <-ctx.Done():
			t.Fatalf("%d of %d requests arrived", len(out), n)
		}
	}
	return out
}

// coalesceEnv is an engine with settings s over one endpoint of h, on a
// fake clock, and a counter of the callers that joined a call in flight.
type coalesceEnv struct {
	client *engine.Engine
	clock  *clockwork.FakeClock
	joins  *joinCounter
}

func newCoalesceEnv(t *testing.T, h *holdServer, s transport.Settings, o engine.Options) *coalesceEnv {
	t.Helper()
	e := newCoalesceEnvURL(t, h.srv.URL, s, o)
	t.Cleanup(h.open) // registered after the engine's Close, so run before it
	return e
}

// newCoalesceEnvURL is newCoalesceEnv over one endpoint at url.
func newCoalesceEnvURL(t *testing.T, url string, s transport.Settings, o engine.Options) *coalesceEnv {
	t.Helper()
	clock := clockwork.NewFakeClockAt(epoch)
	l := endpoint.Limits{RequestTimeout: 10 * time.Second}
	p, err := admission.New([]endpoint.Spec{{Name: "a", URL: endpoint.NewSecret(url),
		Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: l, endpoint.RoleSend: l}}}, pool.DefaultSettings(), admission.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	s.Retry.Jitter = noJitter
	c, err := engine.New(p, s, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	j := &joinCounter{ch: make(chan struct{}, 1024)}
	engine.OnCoalesceJoin(c, j.join)
	return &coalesceEnv{client: c, clock: clock, joins: j}
}

// joinCounter signals each caller that joined a call in flight.
type joinCounter struct{ ch chan struct{} }

func (j *joinCounter) join() { j.ch <- struct{}{} }

// wait waits until n more callers joined.
func (j *joinCounter) wait(t *testing.T, n int) {
	t.Helper()
	ctx := guardCtx(t)
	for i := range n {
		select {
		case <-j.ch:
		case <-ctx.Done():
			t.Fatalf("%d of %d callers joined the call in flight", i, n)
		}
	}
}

// deadlineCtx reports a deadline on the pool's (fake) clock but never
// ends by itself: only the engine, on that clock, can hold a call to it
// (as with a real context and the real clock, where the two agree).
type deadlineCtx struct {
	context.Context
	deadline time.Time
}

func (c deadlineCtx) Deadline() (time.Time, bool) { return c.deadline, true }
