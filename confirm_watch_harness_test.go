package solroute_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/resolve"
)

// stepper drives one SendAndConfirm or Resolve on the subEnv's fake
// clock. It steps the clock only while the resolution waits in its
// watch's Next (or, with stepSubscribe, in its subscribe), to the next
// slot boundary or poll time, settling the client's subscriptions and the
// PubSubs around each step, and then has the watch look (without
// waiting) for a notification: every reading of the clock the resolution
// makes is deterministic, and a notification is seen at the step it
// arrived.
type stepper struct {
	env *subEnv
	t0  time.Time // the cluster's start: slot boundaries are t0 + k slots
	// silent: the watch never notifies and nothing is subscribed (the
	// polling-only figures: the same waits, no notification).
	silent bool
	// stepSubscribe steps the clock while the subscribe waits (faults
	// whose answer, or SubscribeWait, needs the clock).
	stepSubscribe bool

	idle chan time.Time // the resolution waits until then (a poll, the subscribe's bound)
	look chan struct{}  // the clock stepped: look
	woke chan bool      // whether the resolution goes on (notified, due, subscribed)

	mu           sync.Mutex
	notices      int       // notifications handed to the resolution
	subscribeErr error     // the subscribe's error
	subscribedAt time.Time // the clock when the subscribe returned
	ended        error     // the subscription's end without a notification
	closed       int       // watches closed
}

func newStepper(env *subEnv, t0 time.Time) *stepper {
	return &stepper{env: env, t0: t0, idle: make(chan time.Time), look: make(chan struct{}), woke: make(chan bool)}
}

// wrap is the resolution's watcher: w's, seen through the stepper.
func (s *stepper) wrap(w resolve.Watcher) resolve.Watcher {
	return func(ctx context.Context, sig solana.Signature, c rpc.CommitmentType) (resolve.Watch, error) {
		sw := &stepWatch{s: s}
		if s.silent {
			return sw, nil
		}
		if w == nil {
			return nil, errors.New("no watcher: the client has no subscribe endpoint")
		}
		var err error
		if s.stepSubscribe {
			sw.inner, err = s.subscribeStepped(ctx, w, sig, c)
		} else {
			sw.inner, err = w(ctx, sig, c)
		}
		s.mu.Lock()
		s.subscribeErr, s.subscribedAt = err, s.env.clock.Now()
		s.mu.Unlock()
		// A failed subscribe leaves the resolution to polls on a plain
		// timer (internal/resolve's tests); here the same waits run
		// through the silent watch, so that the driver sees them.
		return sw, nil
	}
}

// subscribeStepped subscribes while the driver steps the clock.
func (s *stepper) subscribeStepped(ctx context.Context, w resolve.Watcher, sig solana.Signature, c rpc.CommitmentType) (resolve.Watch, error) {
	type out struct {
		w   resolve.Watch
		err error
	}
	done := make(chan out, 1)
	go func() {
		w, err := w(ctx, sig, c)
		done <- out{w, err}
	}()
	due, _ := ctx.Deadline()
	select {
	case s.idle <- due:
	case o := <-done:
		return o.w, o.err
	}
	for {
		select {
		case o := <-done:
			<-s.look // the driver steps once more, then hears it goes on
			s.woke <- true
			return o.w, o.err
		case <-s.look:
			if !s.env.clock.Now().Before(due) {
				o := <-done
				s.woke <- true
				return o.w, o.err
			}
			s.woke <- false
		}
	}
}

// stepWatch is the resolution's Watch under the stepper.
type stepWatch struct {
	s     *stepper
	inner resolve.Watch // nil: silent
}

func (w *stepWatch) Next(ctx context.Context) (resolve.Notice, error) {
	s := w.s
	due, _ := ctx.Deadline()
	select {
	case s.idle <- due:
	case <-ctx.Done():
		return resolve.Notice{}, context.Cause(ctx)
	}
	for {
		select {
		case <-ctx.Done():
			return resolve.Notice{}, context.Cause(ctx)
		case <-s.look:
		}
		if n, ok := w.peek(); ok {
			s.woke <- true
			return n, nil
		}
		if !s.env.clock.Now().Before(due) {
			s.woke <- true
			<-ctx.Done()
			return resolve.Notice{}, context.Cause(ctx)
		}
		s.woke <- false
	}
}

// peek takes a notification the subscription holds, without waiting. A
// subscription that ended without one makes the watch silent.
func (w *stepWatch) peek() (resolve.Notice, bool) {
	if w.inner == nil {
		return resolve.Notice{}, false
	}
	now, cancel := context.WithCancel(context.Background())
	cancel()
	n, err := w.inner.Next(now)
	switch {
	case err == nil:
		w.s.mu.Lock()
		w.s.notices++
		w.s.mu.Unlock()
		return n, true
	case !errors.Is(err, context.Canceled):
		w.s.mu.Lock()
		w.s.ended = err
		w.s.mu.Unlock()
		w.inner.Close()
		w.inner = nil
	}
	return resolve.Notice{}, false
}

func (w *stepWatch) Close() {
	if w.inner != nil {
		w.inner.Close()
	}
	w.s.mu.Lock()
	w.s.closed++
	w.s.mu.Unlock()
}

// run runs f (the resolution) on its own goroutine and steps the clock
// while it waits, until it returns (at most maxSteps steps).
func (s *stepper) run(t *testing.T, maxSteps int, f func(context.Context) (confirm.Result, error)) (confirm.Result, error) {
	t.Helper()
	type out struct {
		r   confirm.Result
		err error
	}
	ctx, cancel := context.WithTimeout(context.Background(), subWatchdog) // a hang guard, never asserted on
	defer cancel()
	done := make(chan out, 1)
	go func() {
		r, err := f(ctx)
		done <- out{r, err}
	}()
	var due time.Time // zero: the resolution is at work, not waiting
	for steps := 0; ; steps++ {
		if steps > maxSteps {
			t.Fatalf("no verdict after %d steps", maxSteps)
		}
		if due.IsZero() {
			select {
			case o := <-done:
				return o.r, o.err
			case due = <-s.idle:
			case <-ctx.Done():
				t.Fatal("the resolution hung")
			}
		}
		s.step(due)
		select {
		case s.look <- struct{}{}:
			if <-s.woke {
				due = time.Time{}
			}
		case due = <-s.idle: // it went on by itself (its wait's timer)
		case o := <-done:
			return o.r, o.err
		case <-ctx.Done():
			t.Fatal("the resolution hung")
		}
	}
}

// step settles, advances the clock to the next slot boundary or due,
// whichever comes first, and settles.
func (s *stepper) step(due time.Time) {
	s.env.settle()
	now := s.env.clock.Now()
	next := now.Add(slotTime - now.Sub(s.t0)%slotTime)
	if due.After(now) && due.Before(next) {
		next = due
	}
	s.env.clock.Advance(next.Sub(now))
	s.env.settle()
}

// counts returns what the stepper saw.
func (s *stepper) counts() (notices, closed int, subscribeErr, ended error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notices, s.closed, s.subscribeErr, s.ended
}

// newConfirmEnv is a subEnv of three members ("a", "b", "c", each with a
// PubSub) whose servers answer sendTransaction with sendFault (None:
// normally), and the clock's reading at its start.
func newConfirmEnv(t *testing.T, sendFault fixtures.Fault) (*subEnv, time.Time) {
	t.Helper()
	return newLaggingConfirmEnv(t, sendFault, nil)
}

// newLaggingConfirmEnv is newConfirmEnv whose members lag lags[i] slots
// (HTTP and PubSub: one slot model).
func newLaggingConfirmEnv(t *testing.T, sendFault fixtures.Fault, lags []uint64) (*subEnv, time.Time) {
	t.Helper()
	e := &subEnv{t: t, clock: clockwork.NewFakeClockAt(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
		ledger: fixtures.NewLedger(), names: []string{"a", "b", "c"}}
	t0 := e.clock.Now()
	var ms []fixtures.Member
	for i, n := range e.names {
		o := fixtures.Options{Clock: e.clock, Ledger: e.ledger, Slots: &fixtures.SlotOptions{Start: 5000}}
		if i < len(lags) {
			o.Slots.Lag = lags[i]
		}
		if sendFault.Kind != fixtures.None {
			o.Script = fixtures.ByMethod(map[string]fixtures.Fault{"sendTransaction": sendFault})
		}
		ms = append(ms, fixtures.Member{Name: n, PubSub: &fixtures.PubSubOptions{}, Options: o})
	}
	e.cluster = fixtures.NewCluster(ms)
	t.Cleanup(e.cluster.Close)
	c, err := solroute.New(solroute.Options{Endpoints: e.cluster.Endpoints(), Hooks: solroute.Hooks{Clock: e.clock}})
	if err != nil {
		t.Fatal(err)
	}
	e.client = c
	t.Cleanup(func() { _ = c.Close() }) // before the servers close
	return e, t0
}

// txAndHeight is a signed transaction and its lastValidBlockHeight.
type txAndHeight struct {
	tx   *solana.Transaction
	lvbh uint64
}

// tx returns a transaction on the tip's blockhash.
func (e *subEnv) tx(seed int) txAndHeight { return e.txAged(seed, 0) }

// txAged returns a transaction on the blockhash of block height tip - age.
func (e *subEnv) txAged(seed int, age uint64) txAndHeight {
	e.t.Helper()
	_, height := e.ledger.Tip()
	tx, err := fixtures.SignedTransaction(uint64(seed), fixturedata.BlockhashAt(height-age))
	if err != nil {
		e.t.Fatal(err)
	}
	return txAndHeight{tx, height - age + fixturedata.MaxProcessingAge}
}
