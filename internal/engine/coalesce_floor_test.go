package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/slots"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// floorServer answers getAccountInfo at its current slot, refusing a
// minContextSlot above it with -32016 as agave does; every request after
// the first `free` waits on gate. It counts the requests it read.
type floorServer struct {
	srv     *httptest.Server
	mu      sync.Mutex
	slot    uint64
	free    int
	n       int
	arrived chan struct{}
	gate    chan struct{}
}

// newFloorServer starts a floorServer at slot whose first free requests
// are answered at once.
func newFloorServer(t *testing.T, slot uint64, free int) *floorServer {
	f := &floorServer{slot: slot, free: free, arrived: make(chan struct{}, 64), gate: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// setSlot moves the server's slot.
func (f *floorServer) setSlot(s uint64) { f.mu.Lock(); f.slot = s; f.mu.Unlock() }

// requests is how many requests the server read.
func (f *floorServer) requests() int { f.mu.Lock(); defer f.mu.Unlock(); return f.n }

// serve answers one request (see floorServer).
func (f *floorServer) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage   `json:"id"`
		Params []json.RawMessage `json:"params"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	f.mu.Lock()
	f.n++
	n, slot := f.n, f.slot
	f.mu.Unlock()
	if n > f.free {
		f.arrived <- struct{}{}
		select {
		case <-f.gate:
		case <-r.Context().Done():
			return
		}
	}
	var cfg struct {
		MinContextSlot uint64 `json:"minContextSlot"`
	}
	if len(req.Params) > 1 {
		_ = json.Unmarshal(req.Params[1], &cfg)
	}
	w.Header().Set("Content-Type", "application/json")
	if cfg.MinContextSlot > slot {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32016,"message":"Minimum context slot has not been reached","data":{"contextSlot":%d}}}`, req.ID, slot)
		return
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"context":{"slot":%d},"value":null}}`, req.ID, slot)
}

// floorParams are the getAccountInfo params of the floor tests.
func floorParams() []any {
	return []any{"9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM", rpc.M{"commitment": "confirmed", "encoding": "base64"}}
}

// floorFlight sets up a leader held to a Session's mark (1000) on an
// endpoint now at 900, which refuses it with -32016 (no retries), and a
// follower under fctx(sctx) joined to its flight; it lets both answer
// and returns their errors.
func floorFlight(t *testing.T, fctx func(sctx context.Context) context.Context) (fs *floorServer, leader, follower error) {
	fs = newFloorServer(t, 1000, 1)
	s := transport.DefaultSettings()
	s.Retry.MaxRetries = 0
	e := newCoalesceEnvURL(t, fs.srv.URL, s, engine.Options{})
	sctx := engine.WithSession(context.Background(), new(slots.Session))
	var out json.RawMessage
	if err := e.client.CallForInto(sctx, &out, "getAccountInfo", floorParams()); err != nil {
		t.Fatal(err) // the session's mark is now 1000
	}
	fs.setSlot(900) // the endpoint is now 100 slots behind that mark
	leaderErr := make(chan error, 1)
	go func() {
		var o json.RawMessage
		leaderErr <- e.client.CallForInto(sctx, &o, "getAccountInfo", floorParams())
	}()
	<-fs.arrived
	followerErr := make(chan error, 1)
	go func() {
		var o json.RawMessage
		followerErr <- e.client.CallForInto(fctx(sctx), &o, "getAccountInfo", floorParams())
	}()
	e.joins.wait(t, 1)
	close(fs.gate)
	return fs, <-leaderErr, <-followerErr
}

// TestCoalesceLeaderFloorFailureSparesALowerFloor: plans/018 §4 "each
// follower judges the shared answer's slot against its own plan". A
// leader held to its Session's high floor fails (-32016); a follower with
// monotonic reads off ("speed over order"), whose own call is answered,
// joined that flight: it makes its own call, once, and succeeds.
func TestCoalesceLeaderFloorFailureSparesALowerFloor(t *testing.T) {
	fs, leader, follower := floorFlight(t, func(context.Context) context.Context {
		return engine.WithMonotonicReads(context.Background(), false)
	})
	var ce *transport.CallError
	if !errors.As(leader, &ce) || ce.Cause != retrypolicy.NodeBehind {
		t.Fatalf("leader: %v, want node-behind at its floor", leader)
	}
	if follower != nil {
		t.Fatalf("a caller with monotonic reads off, whose own read succeeds at slot 900, failed with the leader's floor: %v", follower)
	}
	if n := fs.requests(); n != 3 {
		t.Fatalf("%d requests, want 3: the first, the leader's, the follower's own", n)
	}
}

// TestCoalesceLeaderFloorFailureSharedAtTheSameFloor: a follower held to
// the leader's own floor (the same Session) would be refused as the
// leader was: it gets the leader's failure, with no request of its own.
func TestCoalesceLeaderFloorFailureSharedAtTheSameFloor(t *testing.T) {
	fs, leader, follower := floorFlight(t, func(sctx context.Context) context.Context { return sctx })
	var ce *transport.CallError
	if !errors.As(leader, &ce) || ce.Cause != retrypolicy.NodeBehind || follower != leader {
		t.Fatalf("leader %v, follower %v: want the leader's node-behind, shared", leader, follower)
	}
	if n := fs.requests(); n != 2 {
		t.Fatalf("%d requests, want 2: the first and the leader's", n)
	}
}
