package soak

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/fixturespec"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/transport"
)

// Two defects the provider mix exposed beyond issue 20's list, each
// reduced to the smallest cluster that shows it. Both expect what a user
// of any real cluster expects: while honest endpoints answer, reads are
// served.

// readClient is a pool and a client on the cluster's specs.
func readClient(t *testing.T, c *fixtures.Cluster) *engine.Engine {
	t.Helper()
	p, err := admission.New(fixturespec.Specs(c), pool.DefaultSettings(), admission.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tc, err := engine.New(p, transport.DefaultSettings(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tc.Close() })
	return tc
}

// confirmedRead reads getSlot or getBalance at confirmed.
func confirmedRead(ctx context.Context, tc *engine.Engine, method string) error {
	params := []any{map[string]any{"commitment": "confirmed"}}
	if method == "getBalance" {
		params = append([]any{"11111111111111111111111111111111"}, params...)
	}
	var out json.RawMessage
	return tc.CallForInto(ctx, &out, method, params)
}

// TestReadsServedAfterOneEndpointAnsweredAhead (new defect, not in issue
// 20's list): on a stalled chain, two honest endpoints and one whose
// getSlot is 3 slots ahead (fixtures.Lies.SlotAhead; a node whose slot
// answer runs ahead of its banks). Once the client has returned that
// endpoint's getSlot to a caller on the client-wide mark, the caller's
// floor is a slot no bank of the cluster has: every endpoint, the one
// ahead included, refuses every later read (-32016) until the chain
// reaches it, which a stalled chain never does. Three endpoints answer
// at their slots all along; the reads must be served.
func TestReadsServedAfterOneEndpointAnsweredAhead(t *testing.T) {
	stalled := &fixtures.Stalls{For: time.Minute} // from the origin
	slots := func() *fixtures.SlotOptions { return &fixtures.SlotOptions{Stalls: stalled} }
	c := fixtures.NewCluster([]fixtures.Member{
		{Name: "a", Options: fixtures.Options{Slots: slots()}},
		{Name: "b", Options: fixtures.Options{Slots: slots()}},
		{Name: "ahead", Options: fixtures.Options{Slots: slots(), Lies: &fixtures.Lies{SlotAhead: 3}}},
	})
	t.Cleanup(c.Close)
	tc := readClient(t, c)
	var fromAhead atomic.Bool
	observe := engine.WithObserver(context.Background(), engine.AttemptFunc(func(_ context.Context, _ string, a transport.Attempt) {
		if a.Endpoint == "ahead" && !a.Failed() {
			fromAhead.Store(true)
		}
	}))
	for i := 0; !fromAhead.Load(); i++ {
		if i == 100 {
			t.Fatal("100 getSlot calls and none served by the endpoint ahead")
		}
		ctx, cancel := context.WithTimeout(observe, time.Second)
		_ = confirmedRead(ctx, tc, "getSlot")
		cancel()
	}
	failed, last := 0, error(nil)
	for range 10 {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		if err := confirmedRead(ctx, tc, "getBalance"); err != nil {
			failed, last = failed+1, err
		}
		cancel()
	}
	if failed > 0 {
		t.Errorf("%d of 10 reads failed after one getSlot answered 3 slots ahead of the others, on a stalled chain; last: %v", failed, last)
	}
}

// TestReadsServedOnDriftingEndpoints (new defect, not in issue 20's
// list): three honest endpoints 0 to 5 slots apart, drifting
// (fixtures.Drift), with a provider's limits, and eight callers on the
// client-wide mark. The mark follows the endpoint furthest ahead, the
// endpoints behind it refuse (-32016) the reads sent to them, each
// refusal takes a retry, and the retries use up the retry budget: reads
// fail on their first attempt with "retry budget spent" although an
// endpoint at the floor was there. Without drift the same workload fails
// no read; with it every read must still be served.
func TestReadsServedOnDriftingEndpoints(t *testing.T) {
	limits := endpoint.Limits{RequestsPerSecond: 120, BurstCapacity: 20, MaxConcurrentRequests: 8, RequestTimeout: 2 * time.Second}
	var ms []fixtures.Member
	for i, name := range []string{"a", "b", "c"} {
		ms = append(ms, fixtures.Member{Name: name, Read: &limits,
			Options: fixtures.Options{Slots: &fixtures.SlotOptions{Drift: &fixtures.Drift{Seed: uint64(i + 1)}}}})
	}
	c := fixtures.NewCluster(ms)
	t.Cleanup(c.Close)
	tc := readClient(t, c)
	const calls = 400
	var next, failed atomic.Int64
	var mu sync.Mutex
	reasons := map[string]int{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := next.Add(1); i <= calls; i = next.Add(1) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				err := confirmedRead(ctx, tc, [...]string{"getSlot", "getBalance"}[i%2])
				cancel()
				if err == nil {
					continue
				}
				failed.Add(1)
				var ce *transport.CallError
				why := err.Error()
				if errors.As(err, &ce) && len(ce.Attempts) > 0 {
					a := ce.Attempts[len(ce.Attempts)-1]
					why = fmt.Sprintf("%d attempt(s), last %d: %s", len(ce.Attempts), a.RPCCode, a.Decision.Reason)
				}
				mu.Lock()
				reasons[why]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if n := failed.Load(); n > 0 {
		t.Errorf("%d of %d reads failed on three honest endpoints 0-5 slots apart; by how they ended: %v", n, calls, reasons)
	}
}
