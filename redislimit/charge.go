package redislimit

import (
	"math"
	"time"
)

// spendSlots is how many slots a spendLog divides its span into: the
// count it gives may include up to one slot's admissions from before the
// span (never fewer than were made in it).
const spendSlots = 16

// spendLog counts a bucket's fallback admissions over the last span
// (burst × T, the time the bucket takes to refill from empty), in slots of
// span / spendSlots. On Redis's return the bucket charges that count to
// the shared bucket (plans/013, "Faults": admissions older than the span
// cannot have left it emptier than a full refill). Instants must never go
// backwards (the bucket's mutex and advance see to it). Its zero value
// counts nothing; newSpendLog sets the span.
type spendLog struct {
	// width is the slot length (at least 1 ns).
	width int64
	// slot[i] is which slot (instant / width) n[i] counts.
	slot [spendSlots + 1]int64
	n    [spendSlots + 1]int
}

// newSpendLog returns a log over span (tolerance, in microseconds).
func newSpendLog(toleranceUS float64) spendLog {
	w := math.Ceil(toleranceUS * float64(time.Microsecond) / spendSlots)
	if !(w >= 1) {
		w = 1
	}
	return spendLog{width: int64(min(w, math.MaxInt64/4))}
}

// add counts one admission at t.
func (s *spendLog) add(t time.Time) {
	if s.width == 0 {
		return
	}
	k := t.UnixNano() / s.width
	i := k % int64(len(s.slot))
	if s.slot[i] != k {
		s.slot[i], s.n[i] = k, 0
	}
	s.n[i]++
}

// within returns the admissions counted in the slots that cover
// [t − span, t]: every one made in that time, and possibly some of the
// slot before.
func (s *spendLog) within(t time.Time) int {
	if s.width == 0 {
		return 0
	}
	k := t.UnixNano() / s.width
	total := 0
	for i, at := range s.slot {
		if at <= k && at >= k-spendSlots {
			total += s.n[i]
		}
	}
	return total
}

// reset forgets every admission counted (they were charged).
func (s *spendLog) reset() { s.n = [spendSlots + 1]int{} }
