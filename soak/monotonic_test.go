package soak

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/solroute/solroute/internal/slots"
)

// Monotonic reads (issue 13): no caller ever sees its context slot go
// backwards. A caller is one goroutine of the soak's workload: it makes
// one call at a time. One caller in two keeps its marks in a
// slots.Session of its own (WithSession); the others share the
// client's (Settings.MonotonicReads). Every slot-bearing read is checked
// as it returns, per commitment:
//
//   - every caller: its slot is not below any slot returned to the same
//     caller before;
//   - a caller on the client's mark: its slot is not below any slot
//     returned to a caller on the client's mark whose call had returned
//     (and published it, see slotCheck.wide) before this call started.
//     Calls in flight at once are not ordered: the one that started first
//     may return a lower slot, and nothing promises otherwise.
//
// "Any slot" is every slot for getSlot, and every context slot for a
// read of a bank's state (issue 20, N1): getSlot's answer is a node's
// claim, which may run ahead of every bank of the cluster (a node, or a
// fleet behind one URL, whose getSlot answers ahead of the bank that
// serves its next read); a read held to it would be refused by every bank
// until the chain got there, forever on a stalled chain. So getSlot never
// goes below a slot returned before, of either kind, and a context slot
// never below a context slot returned before.
//
// At the end every session's mark must be the highest slot returned to its
// caller.

// commitments are the commitments a slot-bearing read asks for: none
// (finalized, agave's default, with no config object: the transport
// appends one to carry minContextSlot), or one named.
var commitments = [...]string{"", "finalized", "confirmed", "processed"}

// withCommitment returns a read's params asking for commitment (none for
// ""), and the commitment its answer's slot is at.
func withCommitment(params []any, commitment string) ([]any, slots.Commitment) {
	c, _ := slots.ParseCommitment(commitment)
	if commitment == "" {
		return params, c
	}
	return append(params, map[string]any{"commitment": commitment}), c
}

// answerSlot reads the slot of a successful answer to a slot-bearing read.
func answerSlot(method string, out json.RawMessage) (uint64, bool) {
	if method == "getSlot" {
		var n uint64
		return n, json.Unmarshal(out, &n) == nil && n > 0
	}
	var r struct {
		Context *struct {
			Slot uint64 `json:"slot"`
		} `json:"context"`
	}
	if json.Unmarshal(out, &r) != nil || r.Context == nil || r.Context.Slot == 0 {
		return 0, false
	}
	return r.Context.Slot, true
}

// caller is one goroutine of the soak's workload.
type caller struct {
	id      int
	session *slots.Session // nil: the client's own mark
	// last is the highest slot returned to this caller per commitment,
	// and banked the highest context slot (getSlot's answers left out);
	// only its goroutine touches them until the run ends.
	last, banked [slots.Commitments]returned
}

func (w *caller) String() string {
	if w.session != nil {
		return fmt.Sprintf("caller %d (own session)", w.id)
	}
	return fmt.Sprintf("caller %d (client-wide mark)", w.id)
}

// returned is a slot returned to a caller, and by which call.
type returned struct {
	slot   uint64
	call   int
	method string
	caller int
}

// What a caller held when one of its reads was answered more than
// MaxSlotLag behind the tip: nothing at that commitment, a slot itself
// that far behind, or a slot near the tip (anchored).
const (
	heldNothing = iota
	heldBehind
	heldAnchored
	helds
)

// slotCheck checks the slots returned to every caller.
type slotCheck struct {
	// wide is, per commitment, the highest slot returned to a caller on
	// the client's mark, published after its call returned: a getSlot
	// that reads it before it starts must not return less. wideBanked is
	// the same of context slots alone, for the other reads.
	wide, wideBanked [slots.Commitments]atomic.Pointer[returned]
	// reads counts the slot-bearing reads checked; bySession those of
	// callers with a session; perCaller those compared with an earlier
	// slot of the same caller; perClient those compared with the
	// client-wide mark; fresh those of a caller that held nothing.
	reads, bySession, perCaller, perClient, fresh atomic.Int64
	// behind counts, per lag phase at the call's start, kind of caller
	// (0: own session, 1: client-wide mark) and what it held, the reads
	// answered more than MaxSlotLag behind the cluster's tip at their
	// start. Only the lagging endpoint answers that far behind: the others
	// share its origin and have no lag, and no fault changes the slot of
	// an answer that succeeds. anchored counts, per phase, the reads of
	// anchored callers.
	behind   [lagPhases][2][helds]atomic.Int64
	anchored [lagPhases]atomic.Int64
}

// before returns what a call of method by w at commitment c is held to
// besides w's own slots: the client-wide mark when w has no session.
func (sc *slotCheck) before(w *caller, c slots.Commitment, method string) *returned {
	switch {
	case w.session != nil:
		return nil
	case method == "getSlot":
		return sc.wide[c].Load()
	}
	return sc.wideBanked[c].Load()
}

// publish raises mark to got.
func publish(mark *atomic.Pointer[returned], got *returned) {
	for {
		cur := mark.Load()
		if (cur != nil && cur.slot >= got.slot) || mark.CompareAndSwap(cur, got) {
			return
		}
	}
}

// check checks the slot a call returned to w at commitment c: never below
// the slot returned to w before, nor, on the client's mark, below the
// client-wide mark read before the call started (before). tip is the
// cluster's tip at c when the call started, and phase the lag phase then.
func (sc *slotCheck) check(bad *violations, w *caller, got returned, c slots.Commitment, before *returned, tip uint64, phase lagPhase) {
	sc.reads.Add(1)
	kind := 1
	if w.session != nil {
		sc.bySession.Add(1)
		kind = 0
	}
	prev := &w.last[c]
	if got.method != "getSlot" {
		prev = &w.banked[c]
	}
	if prev.slot > 0 {
		sc.perCaller.Add(1)
		if got.slot < prev.slot {
			bad.addAs("a read back in time", "%s: call %d (%s, %s) returned context slot %d, below slot %d its call %d (%s) returned: %d slots back",
				w, got.call, got.method, c, got.slot, prev.slot, prev.call, prev.method, prev.slot-got.slot)
		}
	}
	held := prev.slot
	if before != nil {
		sc.perClient.Add(1)
		if got.slot < before.slot {
			bad.addAs("a read back in time", "%s: call %d (%s, %s) returned context slot %d, below slot %d the client returned (caller %d, call %d, %s) before it started: %d slots back",
				w, got.call, got.method, c, got.slot, before.slot, before.caller, before.call, before.method, before.slot-got.slot)
		}
		held = max(held, before.slot)
	}
	h := heldAnchored
	switch {
	case held == 0:
		sc.fresh.Add(1)
		h = heldNothing
	case held+defaultSlotLag() < tip:
		h = heldBehind
	default:
		sc.anchored[phase].Add(1)
	}
	if got.slot+defaultSlotLag() < tip {
		sc.behind[phase][kind][h].Add(1)
	}
	if got.slot > w.last[c].slot {
		w.last[c] = got
	}
	if got.method != "getSlot" && got.slot > w.banked[c].slot {
		w.banked[c] = got
	}
	if w.session != nil {
		return
	}
	publish(&sc.wide[c], &got)
	if got.method != "getSlot" {
		publish(&sc.wideBanked[c], &got)
	}
}

// checkSessions checks that every session's mark is the highest slot
// returned to its caller: what the transport holds a caller to is what it
// returned.
func (sc *slotCheck) checkSessions(bad *violations, callers []*caller) {
	for _, w := range callers {
		if w.session == nil {
			continue
		}
		for c := range slots.Commitment(slots.Commitments) {
			if got, want := w.session.Slot(c), w.last[c].slot; got != want {
				bad.add("%s: its session's mark at %s is %d, but the highest slot returned to it is %d", w, c, got, want)
			}
		}
	}
}

// behindString is behind in phase p, for the log.
func (sc *slotCheck) behindString(p lagPhase) string {
	kinds := [...]string{"session", "client-wide"}
	holds := [...]string{"nothing", "a slot behind", "a slot near the tip"}
	var parts []string
	for k := range kinds {
		for h := range helds {
			if n := sc.behind[p][k][h].Load(); n > 0 {
				parts = append(parts, fmt.Sprintf("%s holding %s: %d", kinds[k], holds[h], n))
			}
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// checkSlots runs the end-of-run checks of slots and logs their figures.
func (s *soak) checkSlots() {
	sc := &s.slots
	sc.checkSessions(&s.bad, s.workers)
	s.lag.check(&s.bad, sc)
	s.t.Logf("monotonic reads: %d slot-bearing reads checked (%d of callers with a session), %d compared with an earlier slot of their caller, %d with the client-wide mark, %d with nothing to hold to",
		sc.reads.Load(), sc.bySession.Load(), sc.perCaller.Load(), sc.perClient.Load(), sc.fresh.Load())
	var b strings.Builder
	for p := range lagPhases {
		fmt.Fprintf(&b, "\n\t%-19s reads of anchored callers %5d; answered more than %d behind the tip: %s", p, sc.anchored[p].Load(), defaultSlotLag(), sc.behindString(p))
	}
	s.t.Logf("%s (%d slots behind while lagging, tier 0, no faults), by phase:%s\n  slot-bearing reads by phase at their start:%s", lagName, lagSlots, s.lag.table(), b.String())
}
