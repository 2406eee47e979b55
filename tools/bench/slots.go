package bench

import (
	"cmp"
	"slices"
	"sync/atomic"
	"time"
)

// Issue 13's figures: what the context slots a client returned say about
// where its reads were served and whether they went back in time.

// slotRead is one successful measured read: when it started and ended,
// since the measured phase's start, and the context slot it returned.
type slotRead struct {
	began, ended time.Duration
	slot         uint64
}

// backInTime counts the reads that went back in time: a read whose slot is
// below the highest slot of the reads that had ended before it started,
// or below floor (the highest slot the warm-up returned, all of it ended
// before the phase). The caller is the client instance as a whole, and
// every read is at one commitment, so one mark per client is the
// high-water mark per caller and commitment.
//
// Under concurrency this is the honest definition: a read that started
// before another one ended cannot have been told about it, and a client
// that returned two overlapping reads in either order broke no promise;
// a read that started after one ended was issued by a caller that could
// already have seen that slot. A read is counted against every read that
// ended before it started, whichever caller made them.
func backInTime(floor uint64, reads []slotRead) int {
	byEnd := slices.Clone(reads)
	slices.SortFunc(byEnd, func(x, y slotRead) int { return cmp.Compare(x.ended, y.ended) })
	byStart := slices.Clone(reads)
	slices.SortFunc(byStart, func(x, y slotRead) int { return cmp.Compare(x.began, y.began) })
	mark, j, n := floor, 0, 0
	for _, r := range byStart {
		for ; j < len(byEnd) && byEnd[j].ended < r.began; j++ {
			mark = max(mark, byEnd[j].slot)
		}
		if r.slot < mark {
			n++
		}
	}
	return n
}

// lagLine tells the lagging endpoint's reads from the others' by their
// slot, from each endpoint's confirmed slot when the fault was applied
// ("a" first): "a" lags when its slot was below every other's. A read is
// the lagging endpoint's when its slot is below the midpoint between
// "a"'s slot and the lowest of the others', moved up one slot per
// slotTime since the phase started (every endpoint's slot
// advances at that pace). A read that took less than half the lag in slot
// times (20 s for 100 slots; calls are bounded by CallTimeout) is
// classified rightly: the lagging endpoint's slot stays below the line,
// the others' above it.
type lagLine struct {
	mid uint64
	ok  bool
}

// newLagLine returns the line for slots, not ok when "a" does not lag by
// more than two slots (a healthy cluster's endpoints share their slots).
func newLagLine(slots []uint64) lagLine {
	if len(slots) < 2 {
		return lagLine{}
	}
	others := slices.Min(slots[1:])
	if slots[0]+2 >= others {
		return lagLine{}
	}
	return lagLine{mid: slots[0] + (others-slots[0])/2, ok: true}
}

// lagging reports whether read r was served by the lagging endpoint.
func (l lagLine) lagging(r slotRead) bool {
	return l.ok && r.slot < l.mid+uint64(max(r.began, 0)/slotTime)
}

// answerWatch records when, after it is armed, a client first received an
// answer from endpoint "a": from then on the client could know where "a"
// is. The zero value is ready; a nil *answerWatch ignores everything.
type answerWatch struct {
	// start is the instant the watch was armed (nil: not armed); first is
	// the first answer's time since then (0: none yet), stored as at
	// least 1 ns. Both are read on the monotonic clock, as the reads'
	// times are.
	start atomic.Pointer[time.Time]
	first atomic.Int64
}

// arm starts the watch at start: answers before it are not counted.
func (w *answerWatch) arm(start time.Time) {
	if w != nil {
		w.start.Store(&start)
	}
}

// saw records an answer from "a" now.
func (w *answerWatch) saw() {
	if w == nil || w.first.Load() != 0 {
		return
	}
	start := w.start.Load()
	if start == nil {
		return
	}
	w.first.CompareAndSwap(0, int64(max(time.Since(*start), 1)))
}

// firstAnswer returns the first answer's time since arm, ok false when
// none was seen.
func (w *answerWatch) firstAnswer() (time.Duration, bool) {
	if w == nil {
		return 0, false
	}
	f := w.first.Load()
	return time.Duration(f), f != 0
}

// slotFigures are issue 13's figures of one measured phase (see Cell).
type slotFigures struct {
	reads, backInTime, lagging, laggingKnown int
	// readsKnown counts the reads that started once the lag was known.
	readsKnown int
	// known is when the client could first know the lagging endpoint's
	// slot, since the phase's start; -1 when it never could.
	known time.Duration
}

// measureSlots computes a phase's slot figures from its successful reads,
// the warm-up's highest slot, the endpoints' slots when the fault was
// applied, and the watch of the client's answers from "a".
//
// The lagging endpoint's lag is known to the client from the first time
// it received an answer from it after the fault: the end of the first
// read that returned the lagging endpoint's slot, or, for a client that
// reports its attempts (solroute), the first attempt "a" answered, a
// refusal included (a -32016 carries the endpoint's slot), whichever came
// first. laggingKnown counts the lagging reads that started after that.
func measureSlots(reads []slotRead, floor uint64, slots []uint64, w *answerWatch) slotFigures {
	f := slotFigures{reads: len(reads), backInTime: backInTime(floor, reads), known: -1}
	line := newLagLine(slots)
	if !line.ok {
		return f
	}
	if t, ok := w.firstAnswer(); ok {
		f.known = t
	}
	for _, r := range reads {
		if line.lagging(r) && (f.known < 0 || r.ended < f.known) {
			f.known = r.ended
		}
	}
	for _, r := range reads {
		after := f.known >= 0 && r.began > f.known
		if after {
			f.readsKnown++
		}
		if line.lagging(r) {
			f.lagging++
			if after {
				f.laggingKnown++
			}
		}
	}
	return f
}
