package pubsub

import "time"

// activity is what the engine is doing, for Activity.
type activity struct {
	busy    int       // goroutines at work that need no clock: a frame handled, a read back in flight
	loopDue time.Time // the loop's next wake; zero while it runs
	changed chan struct{}
}

func newActivity() activity { return activity{changed: make(chan struct{})} }

// changedLocked wakes whoever waits on a change. e.mu must be held.
func (a *activity) changedLocked() {
	close(a.changed)
	a.changed = make(chan struct{})
}

// Activity is a reading of what the engine is doing, for a test that
// steps a fake clock: it steps only once the engine is Quiet and waits on
// exactly what the servers hold (a handshake or a request parked on
// their clock), and its connections are those the servers have open.
type Activity struct {
	// Quiet reports that nothing is in progress that needs no clock: no
	// frame is being handled, no read back is in flight, every frame
	// queued is written and the loop waits for a deadline to come.
	Quiet bool
	// Dialing counts, per endpoint, the dials waiting for their upgrade;
	// Awaiting the subscribe requests written and not answered; Conns the
	// open connections.
	Dialing, Awaiting, Conns map[string]int
	// Changed is closed at the next change.
	Changed <-chan struct{}
}

// Activity reads what the engine is doing now.
func (e *Engine) Activity() Activity {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.clock.Now()
	a := Activity{Dialing: map[string]int{}, Awaiting: map[string]int{}, Conns: map[string]int{}, Changed: e.act.changed}
	quiet := e.act.busy == 0 && !e.act.loopDue.IsZero() && e.act.loopDue.After(now)
	for _, ep := range e.eps {
		a.Dialing[ep.Name] = ep.dialing
		a.Conns[ep.Name] = len(ep.conns)
		for _, c := range ep.conns {
			a.Awaiting[ep.Name] += len(c.pending)
			quiet = quiet && c.drained()
		}
	}
	a.Quiet = quiet || e.closed
	return a
}

// busyStart and busyDone bracket work that needs no clock.
func (e *Engine) busyStart() {
	e.mu.Lock()
	e.act.busy++
	e.act.changedLocked()
	e.mu.Unlock()
}

// busyDoneLocked ends a busy spell. e.mu must be held.
func (e *Engine) busyDoneLocked() {
	e.act.busy--
	e.act.changedLocked()
}
