package pubsub_test

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/pubsub"
)

// TestObserveInOrder: Observe has the events one call at a time, in the
// order they happened, even when the goroutine handing over a stall's
// events is held while the replacement goes live on another goroutine.
// (Each goroutine used to hand over its own events after releasing the
// lock: the replacement's EventLegUp could come first, and CI's rotating
// faults test then read a stall as replaced 6 s late.)
func TestObserveInOrder(t *testing.T) {
	var envp atomic.Pointer[env]
	var (
		mu       sync.Mutex
		order    []pubsub.EventKind
		inFlight atomic.Int32
		overlap  atomic.Int32
		held     atomic.Bool
	)
	observe := func(ev pubsub.Event) {
		if inFlight.Add(1) > 1 {
			overlap.Add(1)
		}
		defer inFlight.Add(-1)
		mu.Lock()
		order = append(order, ev.Kind)
		mu.Unlock()
		if ev.Kind == pubsub.EventConnDown && held.CompareAndSwap(false, true) {
			waitReplaced(t, envp.Load(), ev.Endpoint)
		}
	}
	e := newEnv(t, twoMembers(), func(_ []pubsub.Endpoint, s *pubsub.Settings, o *pubsub.Options) {
		s.Redundancy = 1
		o.Observe = observe
	})
	envp.Store(e)
	if _, err := e.eng.AccountSubscribe(ctxT(t), key(11), pubsub.AccountOptions{Commitment: rpc.CommitmentConfirmed}); err != nil {
		t.Fatal(err)
	}
	e.ps[holders(e)[0]].SetFaults(fixtures.PubSubFaults{Stall: true})
	e.steps(8)
	if !held.Load() {
		t.Fatal("no stall detected")
	}
	if n := overlap.Load(); n != 0 {
		t.Errorf("Observe called %d times while another call ran", n)
	}
	mu.Lock()
	defer mu.Unlock()
	down := slices.Index(order, pubsub.EventConnDown)
	up := slices.Index(order[down:], pubsub.EventLegUp)
	lost := slices.Index(order[down:], pubsub.EventLegDown)
	if up < 0 || lost < 0 || up < lost {
		t.Errorf("after the stall: events %v, want the leg down before its replacement up", order[down:])
	}
}

// waitReplaced blocks until an endpoint other than stalled answered the
// subscription's subscribe and the engine handled the answer (the
// replacement live), waiting on the engine's signal, never for a time.
func waitReplaced(t *testing.T, e *env, stalled string) {
	ctx := ctxT(t)
	for {
		a := e.eng.Activity()
		for name, p := range e.ps {
			if name != stalled && p.Stats().Subscribes["accountSubscribe"] > 0 && a.Awaiting[name] == 0 {
				return
			}
		}
		select {
		case <-a.Changed:
		case <-ctx.Done():
			return // the test fails on the order it then sees
		}
	}
}
