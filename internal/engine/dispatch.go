package engine

import (
	"net/http/httptrace"
	"sync/atomic"

	"github.com/solroute/solroute/retrypolicy"
)

// Marks a dispatchTracker records. They only accumulate: the state is
// sticky and moves one way, NotDispatched -> MaybeDispatched -> Answered.
const (
	// markConn: net/http handed the request to a connection's writer. From
	// here bytes may leave even if no write hook has fired yet: the writer
	// runs on its own goroutine, and a cancelled attempt can return before
	// that goroutine reports its first write.
	markConn uint32 = 1 << iota
	// markAnswered: the first byte of a response arrived.
	markAnswered
)

// dispatchTracker proves, for one attempt, how far the request went. It is
// the only place that turns net/http's trace hooks into a
// retrypolicy.DispatchState. One tracker serves one attempt; hooks may fire
// from net/http's writer and reader goroutines, hence the atomic.
//
// The rules (see plans/003-transport.md):
//   - NotDispatched only when no connection was handed the request: the
//     failure happened in DNS, dial, TLS or the wait for a free connection,
//     before any write could start;
//   - MaybeDispatched as soon as a connection was handed the request
//     (GotConn) and no answer came;
//   - Answered once GotFirstResponseByte fired.
//
// Counting GotConn as "maybe" is stricter than waiting for a write hook,
// and on purpose: after GotConn the request belongs to the connection's
// writer goroutine, and an attempt cancelled at that moment can return
// before the writer's first hook fires even though the writer goes on to
// write. No failure other than cancellation ends an attempt between GotConn
// and the first write, so nothing provable is lost. Every write follows
// GotConn, so the write hooks (WroteHeaderField, WroteHeaders,
// WroteRequest) could only repeat what GotConn proved: none is installed,
// two closures an attempt fewer (plans/015-call-cost.md, "Fourth pass").
// The dispatch tests add their own, to prove a write happened.
type dispatchTracker struct {
	marks atomic.Uint32
	trace httptrace.ClientTrace
}

// init readies t's trace (t must not move afterwards: its hooks hold t).
func (t *dispatchTracker) init() {
	t.trace = httptrace.ClientTrace{
		GotConn:              func(httptrace.GotConnInfo) { t.marks.Or(markConn) },
		GotFirstResponseByte: func() { t.marks.Or(markAnswered) },
	}
}

// state returns what is proven so far.
func (t *dispatchTracker) state() retrypolicy.DispatchState {
	m := t.marks.Load()
	switch {
	case m&markAnswered != 0:
		return retrypolicy.Answered
	case m&markConn != 0:
		return retrypolicy.MaybeDispatched
	}
	return retrypolicy.NotDispatched
}
