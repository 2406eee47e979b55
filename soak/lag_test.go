package soak

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/transport"
)

// The lagging endpoint (issue 13). Every fake endpoint of the soak runs
// fixtures' slot model on the real clock from one origin, so the endpoints
// in step answer the same slot at the same instant, and lagName answers
// lagSlots fewer while its lag is on. It has no fault and is never taken
// down: its slot is the only reason to keep reads from it.

const (
	// lagName is the lagging endpoint: tier 0, beside the endpoints the
	// pool prefers, so that nothing but its slot keeps reads from it.
	lagName = "t0-lag"
	// lagSlots is its lag while on: past the pool's MaxSlotLag (16), below
	// the health distance (128), so that getHealth answers "ok" and a
	// preflight send is accepted: it answers everything normally.
	lagSlots = 100
	// tipName is an endpoint whose Server.TipSlot is read for the
	// cluster's tip (every member shares it).
	tipName = "t0-a"
	// lagOff and lagOn are the fractions of the calls after which the
	// lagging endpoint catches up, then falls lagSlots behind again: its
	// slots go back, as those of a node restarted from an older snapshot
	// do. The window in step is long enough, even in a short run on a
	// loaded machine, for the pool to look again at an endpoint it holds
	// back for its slot (pool's recheck, 1 s) and see it caught up.
	lagOff, lagOn = 0.35, 0.7
	// lagMinInStep is the least time the lagging endpoint stays caught up,
	// whatever the calls: twice the pool's recheck (1 s), so that the pool
	// looks again at it while it is in step even when the calls run fast
	// (on the provider mix many reads fail fast, and 35 % of the calls
	// took 1 s).
	lagMinInStep = 2 * time.Second
)

// lagSchedule is the lag of lagName once done of the calls have
// finished.
func lagSchedule(done, calls int64) uint64 {
	if f := float64(done) / float64(calls); f >= lagOff && f < lagOn {
		return 0
	}
	return lagSlots
}

// lagPhase is where the lagging endpoint is, as the soak saw it.
type lagPhase int32

const (
	// lagBehind: lagSlots behind since the start; no snapshot has shown
	// it Lagging yet.
	lagBehind lagPhase = iota
	// lagKnown: behind, and a snapshot has shown it Lagging.
	lagKnown
	// lagCaughtUp: its lag is 0.
	lagCaughtUp
	// lagBehindAgain: lagSlots behind again; no snapshot has shown it
	// Lagging since.
	lagBehindAgain
	// lagKnownAgain: behind again, and a snapshot has shown it Lagging.
	lagKnownAgain
	lagPhases
)

func (p lagPhase) String() string {
	return [...]string{"behind", "known-lagging", "caught-up", "behind-again", "known-lagging-again"}[p]
}

// slotBearing reports whether a read method of the soak answers a slot:
// getSlot its result, the others their context.slot.
func slotBearing(method string) bool {
	switch method {
	case "getBalance", "getSlot", "getLatestBlockhash":
		return true
	}
	return false
}

// lagEvent is a change of the lagging endpoint seen during the run.
type lagEvent struct {
	at    time.Time
	phase lagPhase
	what  string
}

// lagWatch follows the lagging endpoint: its lag (set by the chaos
// goroutine on lagSchedule), what the pool's snapshots show of it (read
// by the snapshot watcher) and what the attempts sent to it did.
type lagWatch struct {
	phase atomic.Int32 // a lagPhase
	// lag is the lag set last, and caughtUpAt when it was set to 0;
	// written by the chaos goroutine only.
	lag        uint64
	caughtUpAt time.Time

	mu     sync.Mutex
	events []lagEvent

	// Per phase at the attempt's end, the read attempts on lagName: made,
	// refused -32016, and successful for a slot-bearing method (okSlot) or
	// another (okOther); and every endpoint's successful slot-bearing read
	// attempts (allOKSlot).
	attempts, refused, okSlot, okOther, allOKSlot [lagPhases]atomic.Int64
	// caughtUp is set once a snapshot shows the endpoint in step while
	// its lag is off.
	caughtUp atomic.Bool
}

func (l *lagWatch) current() lagPhase { return lagPhase(l.phase.Load()) }

func (l *lagWatch) event(p lagPhase, format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, lagEvent{at: time.Now(), phase: p, what: fmt.Sprintf(format, args...)})
}

// move moves the phase to to from one of from, and reports whether it
// did.
func (l *lagWatch) move(to lagPhase, from ...lagPhase) bool {
	for _, f := range from {
		if l.phase.CompareAndSwap(int32(f), int32(to)) {
			return true
		}
	}
	return false
}

// follow sets lagName's lag by lagSchedule (the chaos goroutine calls it
// at every tick).
func (l *lagWatch) follow(s *soak) {
	done := s.done.Load()
	want := lagSchedule(done, int64(s.calls))
	if want == l.lag || (want > 0 && l.lag == 0 && time.Since(l.caughtUpAt) < lagMinInStep) {
		return
	}
	l.lag = want
	s.cluster.Server(lagName).SetLag(want)
	if want == 0 {
		l.caughtUpAt = time.Now()
		from := l.current()
		l.move(lagCaughtUp, lagBehind, lagKnown)
		l.event(lagCaughtUp, "lag set to 0 after %d calls (was %s)", done, from)
		return
	}
	l.move(lagBehindAgain, lagCaughtUp)
	l.event(lagBehindAgain, "lag set to %d after %d calls", want, done)
}

// observe reads a snapshot of lagName's read role (the snapshot watcher
// calls it at every poll).
func (l *lagWatch) observe(sn endpoint.Snapshot) {
	switch sn.SlotStanding {
	case endpoint.Lagging:
		if l.move(lagKnown, lagBehind) || l.move(lagKnownAgain, lagBehindAgain) {
			l.event(l.current(), "the pool marks it lagging: slot %d (%s), %d behind", sn.Slot, sn.SlotCommitment, sn.SlotLag)
		}
	case endpoint.InStep:
		if l.current() == lagCaughtUp && sn.Slot > 0 && sn.SlotLag <= int64(defaultSlotLag()) && l.caughtUp.CompareAndSwap(false, true) {
			l.event(lagCaughtUp, "the pool has it in step: slot %d (%s), %d behind", sn.Slot, sn.SlotCommitment, sn.SlotLag)
		}
	}
}

// attempt counts a read attempt (OnAttempt).
func (l *lagWatch) attempt(method string, a transport.Attempt) {
	if method == "sendTransaction" {
		return
	}
	p := l.current()
	ok := !a.Failed()
	if ok && slotBearing(method) {
		l.allOKSlot[p].Add(1)
	}
	if a.Endpoint != lagName {
		return
	}
	l.attempts[p].Add(1)
	switch {
	case a.RPCCode == -32016:
		l.refused[p].Add(1)
	case ok && slotBearing(method):
		l.okSlot[p].Add(1)
	case ok:
		l.okOther[p].Add(1)
	}
}

// table is the figures per phase and the events, for the log.
func (l *lagWatch) table() string {
	var b strings.Builder
	for p := range lagPhases {
		share := 0.0
		if n := l.allOKSlot[p].Load(); n > 0 {
			share = 100 * float64(l.okSlot[p].Load()) / float64(n)
		}
		fmt.Fprintf(&b, "\n\t%-19s read attempts %4d, refused -32016 %4d; ok: %4d slot-bearing of %5d over the cluster (%4.1f%%), %4d others",
			p, l.attempts[p].Load(), l.refused[p].Load(), l.okSlot[p].Load(), l.allOKSlot[p].Load(), share, l.okOther[p].Load())
	}
	b.WriteString(l.eventString())
	return b.String()
}

// eventString is the events, one a line.
func (l *lagWatch) eventString() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, e := range l.events {
		fmt.Fprintf(&b, "\n\t%s %s: %s", e.at.Format("15:04:05.000"), e.phase, e.what)
	}
	return b.String()
}

// check checks that the lagging endpoint was seen lagging, refusing and
// serving, so that the bound proves something, and the bound: once the
// pool knew it lagged, it answered no read of a caller anchored near the
// tip.
//
// The pool uses a lagging endpoint as a last resort, at once, whenever no
// endpoint in step can take the request: in the soak every endpoint is
// busy nearly all the time, so the lagging one keeps receiving reads. It
// can serve those that ask for no slot it has not reached: reads that
// carry no slot (getHealth, getVersion), and slot-bearing reads of a
// caller holding nothing at that commitment yet, or only a slot it had
// from the lagging endpoint itself. A caller holding a slot near the tip
// sends a minContextSlot the lagging endpoint cannot meet (-32016) and is
// served elsewhere: it must never get the lagging endpoint's answer.
func (l *lagWatch) check(bad *violations, sc *slotCheck) {
	if p := l.current(); p != lagKnownAgain {
		bad.add("%s: the run ended in phase %s, not %s: the pool did not mark it lagging in both lag periods; events:%s", lagName, p, lagKnownAgain, l.eventString())
	}
	if !l.caughtUp.Load() {
		bad.add("%s: no snapshot showed it in step while its lag was off", lagName)
	}
	if l.attempts[lagBehind].Load()+l.attempts[lagKnown].Load() == 0 {
		bad.add("%s: it received no read before its lag was turned off: its standing proves nothing", lagName)
	}
	if l.refused[lagKnown].Load()+l.refused[lagKnownAgain].Load() == 0 {
		bad.add("%s: it refused no read (-32016) while the pool knew it lagged: no minContextSlot reached it", lagName)
	}
	if l.okSlot[lagCaughtUp].Load() == 0 {
		bad.add("%s: it served no slot-bearing read while in step: nothing shows that only its slot kept reads from it", lagName)
	}
	// A run starved of CPU makes few successful reads: the bound must see
	// some, over both phases.
	if sc.anchored[lagKnown].Load()+sc.anchored[lagKnownAgain].Load() == 0 {
		bad.add("%s: no read of a caller anchored near the tip succeeded while the pool knew it lagged: the bound proves nothing", lagName)
	}
	for _, p := range [...]lagPhase{lagKnown, lagKnownAgain} {
		if m := sc.behind[p][0][heldAnchored].Load() + sc.behind[p][1][heldAnchored].Load(); m > 0 {
			bad.add("%s's phase %s: %d of %d reads of callers holding a slot within %d of the tip were answered more than %d behind it (by %s, or by a stale answer another endpoint garbled)",
				lagName, p, m, sc.anchored[p].Load(), defaultSlotLag(), defaultSlotLag(), lagName)
		}
	}
}

// defaultSlotLag is the pool's default MaxSlotLag, as a slot distance.
func defaultSlotLag() uint64 { return uint64(pool.DefaultSettings().MaxSlotLag) }
