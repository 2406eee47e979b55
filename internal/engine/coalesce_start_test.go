package engine_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/transport"
)

// callLog keeps each observed call's info and result.
type callLog struct {
	mu    sync.Mutex
	infos []transport.CallInfo
	res   []transport.CallResult
}

func (l *callLog) CallStarted(ctx context.Context, _ transport.CallInfo) context.Context { return ctx }
func (l *callLog) AttemptStarted(ctx context.Context, _ transport.CallInfo, _ transport.Attempt) context.Context {
	return ctx
}
func (l *callLog) AttemptEnded(context.Context, transport.CallInfo, transport.Attempt) {}
func (l *callLog) CallEnded(_ context.Context, c transport.CallInfo, r transport.CallResult) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.infos = append(l.infos, c)
	l.res = append(l.res, r)
}

// TestCoalesceFollowerThatAsksAgainKeepsItsWait: a caller joins an
// identical getLatestBlockhash in flight and waits 2 s (pool clock); then
// the leader's own context ends, so the caller asks on its own (it keeps
// the deadline it joined with). Its call began when it joined: the
// Observers' CallInfo.Start and CallResult.Duration (and so
// solroute_call_duration_seconds, "every attempt, wait and backoff
// included") must count the 2 s it waited.
func TestCoalesceFollowerThatAsksAgainKeepsItsWait(t *testing.T) {
	h := newHoldServer(t)
	obs := &callLog{}
	e := newCoalesceEnv(t, h, transport.DefaultSettings(), engine.Options{Observers: []transport.Observer{obs}})
	joined := e.clock.Now()
	lctx, cancel := context.WithCancel(context.Background())
	leader := async(func() error { _, err := latestBlockhash(lctx, e.client); return err })
	h.waitArrivals(t, 1)
	follower := async(func() error { _, err := latestBlockhash(context.Background(), e.client); return err })
	e.joins.wait(t, 1)
	const waited = 2 * time.Second
	e.clock.Advance(waited)
	cancel()
	if err := wait(t, leader); err == nil {
		t.Fatal("the canceled leader succeeded")
	}
	h.waitArrivals(t, 1) // the follower, asking on its own
	h.let(1)
	if err := wait(t, follower); err != nil {
		t.Fatal(err)
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if len(obs.infos) != 2 {
		t.Fatalf("%d calls observed, want the leader's and the follower's", len(obs.infos))
	}
	info, r := obs.infos[1], obs.res[1]
	if !info.Start.Equal(joined) || r.Duration < waited {
		t.Errorf("the follower's call: Start %v after it joined, Duration %v; want Start when it joined and a Duration of at least the %v it waited",
			info.Start.Sub(joined), r.Duration, waited)
	}
}
