package engine_test

import (
	"context"
	"sync"
	"testing"

	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/transport"
)

// callCounter is an Observer counting calls, coalesced ones and attempts.
type callCounter struct {
	mu                        sync.Mutex
	started, ended, coalesced int
	attempts, withAttempts    int
}

func (c *callCounter) CallStarted(ctx context.Context, call transport.CallInfo) context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.started++
	if call.Coalesced {
		c.coalesced++
	}
	return ctx
}

func (c *callCounter) AttemptStarted(ctx context.Context, _ transport.CallInfo, _ transport.Attempt) context.Context {
	return ctx
}

func (c *callCounter) AttemptEnded(context.Context, transport.CallInfo, transport.Attempt) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.attempts++
}

func (c *callCounter) CallEnded(_ context.Context, call transport.CallInfo, r transport.CallResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended++
	if r.Attempts > 0 {
		c.withAttempts++
	}
	if call.Coalesced && (r.Attempts != 0 || r.Err != nil) {
		c.withAttempts += 1000 // a follower claims attempts: fails below
	}
}

// TestCoalesceObserversSeeEveryCaller: each caller is a call to the
// Observers; the one that went upstream has its attempt, each follower is
// marked Coalesced with none of its own.
func TestCoalesceObserversSeeEveryCaller(t *testing.T) {
	h := newHoldServer(t)
	obs := &callCounter{}
	e := newCoalesceEnv(t, h, transport.DefaultSettings(), engine.Options{Observers: []transport.Observer{obs}})
	const n = 10
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if _, err := latestBlockhash(context.Background(), e.client); err != nil {
				t.Error(err)
			}
		})
	}
	h.waitArrivals(t, 1)
	e.joins.wait(t, n-1)
	h.open()
	wg.Wait()
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if obs.started != n || obs.ended != n || obs.coalesced != n-1 || obs.attempts != 1 || obs.withAttempts != 1 {
		t.Fatalf("observed %d calls (%d ended, %d coalesced), %d attempts, %d with attempts: want %d calls, %d coalesced, one attempt in one call",
			obs.started, obs.ended, obs.coalesced, obs.attempts, obs.withAttempts, n, n-1)
	}
}

// TestCoalesceNotAcrossRouting: a call pinned to an endpoint, needing
// capabilities, avoiding endpoints or watching its own attempts (an
// Observer of its own) shares no other's call.
func TestCoalesceNotAcrossRouting(t *testing.T) {
	for name, route := range map[string]func(context.Context) context.Context{
		"endpoint":     func(ctx context.Context) context.Context { return engine.WithEndpoint(ctx, "a") },
		"capabilities": func(ctx context.Context) context.Context { return engine.WithCapabilities(ctx, "archive") },
		"avoid":        func(ctx context.Context) context.Context { return engine.WithAvoid(ctx, "b") },
		"observer": func(ctx context.Context) context.Context {
			return engine.WithObserver(ctx, engine.AttemptFunc(func(context.Context, string, transport.Attempt) {}))
		},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHoldServer(t)
			e := newCoalesceEnv(t, h, transport.DefaultSettings(), engine.Options{})
			ctx := context.Background()
			plain := async(func() error { _, err := latestBlockhash(ctx, e.client); return err })
			h.waitArrivals(t, 1)
			routed := async(func() error { _, err := latestBlockhash(route(ctx), e.client); return err })
			if name != "capabilities" { // no endpoint has it: refused before any request
				h.waitArrivals(t, 1)
			}
			h.open()
			if err := wait(t, plain); err != nil {
				t.Fatal(err)
			}
			err := wait(t, routed)
			if name != "capabilities" && err != nil {
				t.Fatal(err)
			}
			if name == "capabilities" && err == nil {
				t.Fatal("a call needing a capability no endpoint has took another's answer")
			}
		})
	}
}
