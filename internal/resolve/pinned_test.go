package resolve_test

import (
	"context"
	"errors"
	"testing"

	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/transport"
)

// TestWithEndpointAsksThatEndpointAlone: the resolver's witnesses are
// asked with engine.WithEndpoint. Under the client's monotonic reads,
// once a's slot is seen, b (10 slots behind) is refused as stale and the
// read goes to a; pinned to b, the read is b's own answer, however far
// behind, and never another endpoint's.
func TestWithEndpointAsksThatEndpointAlone(t *testing.T) {
	ch := newChain(t, node{name: "a"}, node{name: "b", lag: 10})
	params := []any{map[string]any{"commitment": "processed"}}
	var from string
	observe := func(ctx context.Context) context.Context {
		return engine.WithObserver(ctx, engine.AttemptFunc(func(_ context.Context, _ string, a transport.Attempt) {
			if !a.Failed() {
				from = a.Endpoint
			}
		}))
	}
	var top uint64
	if err := ch.tc.CallForInto(engine.WithAvoid(observe(context.Background()), "b"), &top, "getSlot", params); err != nil || from != "a" {
		t.Fatalf("getSlot on a: %d from %q, %v", top, from, err)
	}
	var slot uint64
	if err := ch.tc.CallForInto(observe(context.Background()), &slot, "getSlot", params); err != nil || from != "a" || slot < top {
		t.Fatalf("getSlot through the pool after a's %d: %d from %q, %v (want a's, never back in time)", top, slot, from, err)
	}
	if err := ch.tc.CallForInto(engine.WithEndpoint(observe(context.Background()), "b"), &slot, "getSlot", params); err != nil ||
		from != "b" || slot != top-10 {
		t.Fatalf("getSlot pinned to b: %d from %q, %v; want b's own %d", slot, from, err, top-10)
	}
	err := ch.tc.CallForInto(engine.WithEndpoint(context.Background(), "nobody"), &slot, "getSlot", params)
	if !errors.Is(err, admission.ErrNoEndpoint) {
		t.Fatalf("pinned to an endpoint that does not exist: %v", err)
	}
}
