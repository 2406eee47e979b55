package pubsub

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/solroute/solroute/endpoint"
)

// timerSpy is a fake clock that checks, each time the engine makes a
// timer, that the engine does not already call itself quiet: a test that
// saw it quiet could advance the clock before the timer exists, and the
// timer would then be set that much later than the loop's deadline.
type timerSpy struct {
	*clockwork.FakeClock
	eng   atomic.Pointer[Engine]
	early atomic.Int32 // timers made after the engine said it was quiet
	made  chan struct{}
}

func (s *timerSpy) NewTimer(d time.Duration) clockwork.Timer {
	if e := s.eng.Load(); e != nil && e.mu.TryLock() {
		// e.mu is free while the loop makes its timer: the loop has
		// already published its deadline (the fix makes the timer under
		// e.mu, so this branch is not taken).
		if e.act.busy == 0 && !e.act.loopDue.IsZero() && e.act.loopDue.After(s.Now()) {
			s.early.Add(1)
		}
		e.mu.Unlock()
	}
	t := s.FakeClock.NewTimer(d)
	select {
	case s.made <- struct{}{}:
	default:
	}
	return t
}

// TestLoopTimerBeforeQuiet: the loop makes its timer before Activity may
// call the engine quiet, so that a test stepping the clock on a quiet
// engine always finds the loop's timer on the clock. (The timer used to be
// made after the lock was released: CI's settles then hit their 20 s
// watchdog, the loop asleep past its deadline.)
func TestLoopTimerBeforeQuiet(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "busy", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	spy := &timerSpy{FakeClock: clockwork.NewFakeClock(), made: make(chan struct{}, 1)}
	e, err := New([]Endpoint{{Name: "a", URL: endpoint.NewSecret("ws" + strings.TrimPrefix(srv.URL, "http"))}},
		Settings{}, Options{Clock: spy})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	spy.eng.Store(e)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for range 4 { // the dial's kick, its failure, and two quiet sleeps
		e.mu.Lock()
		e.kickLoop()
		e.mu.Unlock()
		select {
		case <-spy.made:
		case <-ctx.Done():
			t.Fatal("the loop made no timer")
		}
	}
	if n := spy.early.Load(); n != 0 {
		t.Errorf("%d timers made after the engine said it was quiet", n)
	}
}
