package slots

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/pool"
)

// Slot tracking and lag-aware routing (plans/009-consistency.md).
//
// Every answer that carries a slot raises its endpoint's mark at that
// commitment (Book.SawSlot). From the marks seen in the last
// slotFreshness, each extrapolated to now at one slot per slotTime, the
// pool derives a reference slot per commitment: the highest mark that
// another endpoint corroborates (is within MaxSlotLag of). An endpoint
// more than MaxSlotLag behind the reference is Lagging; one that reported
// a slot more than MaxSlotLag ahead of it an Outlier (what it said, not
// its extrapolated mark: an idle endpoint's mark drifts ahead while the
// chain stalls); both are last resorts, for reads and sends alike, as
// doubt is for sends. One endpoint claiming a slot no other comes near is
// never the reference: one liar cannot make every other endpoint lag.
// With no corroborated mark (one endpoint, or two that disagree) there is
// no reference and nothing lags.
//
// Extrapolation guesses where the chain is now; it is right while the
// chain advances at its target pace and wrong when it stalls (a cluster
// halt, a run of skipped slots, a local ledger). So it serves only where
// guessing high is safe: the lag of an endpoint behind, and the ceiling
// of what an answer may claim. A read's floor, where guessing high makes
// every endpoint refuse (-32016), comes from the agreed slot instead
// (Book.Agreed): the highest slot two endpoints have each reported, no
// more.

const (
	// SlotTime is Solana's target slot time, used to extrapolate a mark
	// seen some time ago to now.
	SlotTime = 400 * time.Millisecond
	slotTime = SlotTime
	// slotFreshness is how long a mark counts: past it the endpoint's slot
	// is not known (an idle endpoint's extrapolated mark drifts; an
	// endpoint avoided because it lagged is tried again after it, and its
	// answer or its -32016 tells where it is now).
	slotFreshness = 30 * time.Second
	// restandEvery is how often an Acquire recomputes the standings while
	// some endpoint is a last resort, so that a lag ages out even when no
	// answer arrives.
	restandEvery = time.Second
	// recheckAfter is how long a mark below a read's floor keeps the
	// endpoint from that read (Need.Floor): after it, one read may
	// find out whether the endpoint caught up.
	recheckAfter = time.Second
)

// Book is the pool's view of where its endpoints are, the one owner of
// "is this endpoint behind": each endpoint's Marks, the reference and
// agreed slots derived from them, every endpoint's standing, and (Plan)
// the floor and ceiling a read is held to. The zero Book has lag-aware
// routing off; NewBook sets the lag. It is safe for concurrent use once
// every endpoint is added.
type Book struct {
	// maxLag is Settings.MaxSlotLag; 0 turns lag-aware routing off (the
	// marks are still kept and shown).
	maxLag uint64
	// marks holds each endpoint's Marks, in configuration order.
	marks []*Marks
	mu    sync.Mutex // serialises restand
	// ref and refAt are the reference slot per commitment (0: none) and
	// when it was computed (UnixNano); agreed is the agreed slot then
	// (Agreed; 0 when there is no reference).
	ref    [Commitments]atomic.Uint64
	refAt  [Commitments]atomic.Int64
	agreed [Commitments]atomic.Uint64
	// standAt is when restand last ran (UnixNano), and lastResorts how
	// many endpoints it left Lagging or Outlier.
	standAt     atomic.Int64
	lastResorts atomic.Int32
}

// resetBelow is how far a mark may fall before it is reset rather than
// kept: a node restarted from an older snapshot. Processed slots may step
// back a few slots when a node switches forks; those keep the mark.
func (b *Book) resetBelow() uint64 {
	if b.maxLag == 0 {
		return uint64(pool.DefaultSettings().MaxSlotLag)
	}
	return b.maxLag
}

// SawSlot records that the endpoint of sh answered at slot s,
// commitment c, at now (a response's context.slot, getSlot's result, or
// the contextSlot of a -32016), and recomputes the
// standings when the mark moved, or when the last recompute is
// restandEvery old: while the chain stalls no mark moves, and the
// reference must still follow the answers (not age out, nor drift past
// them).
func (b *Book) SawSlot(now time.Time, sh *Marks, c Commitment, s uint64) {
	moved := sh.SawSlot(now, c, s, b.resetBelow())
	if b.maxLag > 0 && (moved || now.UnixNano()-b.standAt.Load() >= int64(restandEvery)) {
		b.restand(now)
	}
}

// MaybeRestand recomputes the standings when some endpoint is a last
// resort and the last recompute is older than restandEvery.
func (b *Book) MaybeRestand(now time.Time) {
	if b.lastResorts.Load() > 0 && now.UnixNano()-b.standAt.Load() >= int64(restandEvery) {
		b.restand(now)
	}
}

// estimate is sh's mark at commitment c as reported (raw) and
// extrapolated to now at one slot per slotTime (est); ok is false when it
// has none younger than slotFreshness.
func (b *Book) estimate(sh *Marks, now time.Time, c Commitment) (raw, est uint64, ok bool) {
	slot, age, ok := sh.Slot(now, c)
	if !ok || age >= slotFreshness {
		return 0, 0, false
	}
	return slot, slot + uint64(age/slotTime), true
}

// restand recomputes the reference and the agreed slot per commitment
// and every endpoint's standing.
func (b *Book) restand(now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(b.marks)
	var raw, est [Commitments][]uint64 // 0: not known
	var refs [Commitments]uint64
	for c := Commitment(0); c < Commitments; c++ {
		raw[c], est[c] = make([]uint64, n), make([]uint64, n)
		for i, sh := range b.marks {
			raw[c][i], est[c][i], _ = b.estimate(sh, now, c)
		}
		refs[c], _ = ReferenceSlot(est[c], b.maxLag)
		agreed := uint64(0)
		if refs[c] != 0 {
			agreed = secondHighest(raw[c], refs[c])
		}
		b.ref[c].Store(refs[c])
		b.agreed[c].Store(agreed)
		b.refAt[c].Store(now.UnixNano())
	}
	last := int32(0)
	for i, sh := range b.marks {
		off := int64(0)
		for c := range Commitment(Commitments) {
			if d := standingOff(raw[c][i], est[c][i], refs[c]); abs(d) > abs(off) {
				off = d
			}
		}
		standing := endpoint.InStep
		switch {
		case off > int64(b.maxLag):
			standing = endpoint.Lagging
		case -off > int64(b.maxLag):
			standing = endpoint.Outlier
		}
		if standing != endpoint.InStep {
			last++
		}
		sh.SetStanding(off, standing)
	}
	b.lastResorts.Store(last)
	b.standAt.Store(now.UnixNano())
}

// standingOff is an endpoint's distance from the reference ref at one
// commitment (0 when either is unknown), from its reported mark raw and
// its extrapolation est: ahead (negative) by what it reported, behind
// (positive) by its extrapolation, which gives an idle endpoint the
// benefit of the doubt; 0 in between.
func standingOff(raw, est, ref uint64) int64 {
	switch {
	case raw == 0 || ref == 0:
		return 0
	case raw > ref:
		return -int64(raw - ref)
	case est < ref:
		return int64(ref - est)
	}
	return 0
}

// secondHighest is the second highest of slots at or below ref,
// counting repeats (0 for unknown): the highest slot that two endpoints
// have each reported, leaving out those that claim more than the
// reference (no other endpoint corroborates them).
func secondHighest(slots []uint64, ref uint64) uint64 {
	var first, second uint64
	for _, s := range slots {
		switch {
		case s > ref:
		case s > first:
			first, second = s, first
		case s > second:
			second = s
		}
	}
	return second
}

// abs is |d|.
func abs(d int64) int64 {
	if d < 0 {
		return -d
	}
	return d
}

// Below reports whether sh's slot at commitment c, seen less than
// recheckAfter ago and extrapolated to now, is below slot: a read that
// needs slot would only be refused there. A mark older than that is not
// trusted to exclude: a read may go (it is answered at or past slot, or
// refused and re-marks the endpoint), so a lagging endpoint that caught up
// is seen to have.
func (b *Book) Below(sh *Marks, now time.Time, c Commitment, slot uint64) bool {
	s, age, ok := sh.Slot(now, c)
	return ok && age < recheckAfter && s+uint64(age/slotTime) < slot
}

// Short reports whether sh's latest reading says it has not reached
// need.Floor at need.Commitment: taken less than recheckAfter ago and,
// extrapolated to now, below it. For a read whose answer is the
// endpoint's own slot (need.Answer: getSlot) the reading is its
// mark, the slots it reported; for any other read, the latest slot its
// banks served or refused a read at (Book.SawBank): a node whose getSlot runs
// ahead of its banks, or a fleet behind one URL, is judged by the bank
// the next read is likely to meet. No reading, or an older one, is not
// short: a read may go and find out.
func (b *Book) Short(sh *Marks, now time.Time, need Need) bool {
	return b.Gap(sh, now, need) > 0
}

// Gap is how many slots short of need.Floor sh's latest reading says it
// is (Short's reading, extrapolated to now); 0 when it is not known to be
// short.
func (b *Book) Gap(sh *Marks, now time.Time, need Need) uint64 {
	s, age, ok := reading(sh, now, need)
	if at := s + uint64(age/slotTime); ok && age < recheckAfter && at < need.Floor {
		return need.Floor - at
	}
	return 0
}

// Unread reports whether sh holds no reading for need taken less than
// recheckAfter ago (Gap's reading): nothing says whether it has reached
// need.Floor. For an endpoint that answers, that is a reason to go and
// find out; for one that has failed since it last answered, it is no
// reason to expect an answer at the floor (the caller decides which it
// is: health is not the book's).
func (b *Book) Unread(sh *Marks, now time.Time, need Need) bool {
	_, age, ok := reading(sh, now, need)
	return !ok || age >= recheckAfter
}

// reading is the reading a read that needs need is judged by: for a slot
// answer (need.Answer, getSlot) the slots sh reported, for any other read
// its banks' latest.
func reading(sh *Marks, now time.Time, need Need) (uint64, time.Duration, bool) {
	if need.Answer {
		return sh.Slot(now, need.Commitment)
	}
	return sh.Bank(now, need.Commitment)
}

// NewBook returns a Book whose endpoints may be maxLag slots off the
// reference before they are last resorts (pool.Settings.MaxSlotLag; 0:
// lag-aware routing off, the marks still kept and shown).
func NewBook(maxLag uint64) *Book { return &Book{maxLag: maxLag} }

// Add adds an endpoint's marks. It is called before any other method.
func (b *Book) Add(m *Marks) { b.marks = append(b.marks, m) }

// MaxLag is pool.Settings.MaxSlotLag (0: lag-aware routing off).
func (b *Book) MaxLag() uint64 { return b.maxLag }

// LastResorts reports whether the latest recompute left some endpoint
// Lagging or an Outlier: a last resort.
func (b *Book) LastResorts() bool { return b.lastResorts.Load() > 0 }

// SawBank records that a bank of the endpoint of sh at commitment c
// served a read at slot s (an answer's context slot) or refused it there
// (the contextSlot of a -32016), at now: what SawSlot records, and the
// reading the slot-aware choice judges the endpoint's banks by (Short).
func (b *Book) SawBank(now time.Time, sh *Marks, c Commitment, s uint64) {
	sh.SawBank(now, c, s)
	b.SawSlot(now, sh, c, s)
}

// Reference returns the reference slot at commitment c, extrapolated to
// now: the highest slot an endpoint answered at that another endpoint
// corroborates. ok is false when there is none (lag-aware routing off,
// fewer than two endpoints seen, or none within MaxLag of another). A
// read's ceiling comes from it, so that a slot no other endpoint
// corroborates cannot become a caller's mark.
func (b *Book) Reference(now time.Time, c Commitment) (slot uint64, ok bool) {
	if c >= Commitments || b.maxLag == 0 {
		return 0, false
	}
	ref := b.ref[c].Load()
	if ref == 0 {
		return 0, false
	}
	age := time.Duration(max(now.UnixNano()-b.refAt[c].Load(), 0))
	if age >= slotFreshness {
		return 0, false
	}
	return ref + uint64(age/slotTime), true
}

// Agreed returns the agreed slot at commitment c: the highest slot that
// two endpoints have each reported at c, none of them ahead of the
// reference (a slot no other endpoint comes near counts for nothing);
// never extrapolated, so it is never above what endpoints actually
// answered, however long the chain stalls. ok is false whenever
// Reference's is. A read's floor is at most MaxLag below it (bounded
// staleness) and never above it but for the caller's own mark.
func (b *Book) Agreed(now time.Time, c Commitment) (slot uint64, ok bool) {
	if _, ok := b.Reference(now, c); !ok {
		return 0, false
	}
	slot = b.agreed[c].Load()
	return slot, slot != 0
}

// Need is the slot a read must reach, for the pool's slot-aware choice:
// an endpoint known to be below it would only refuse (-32016) or answer
// stale. The zero Need asks nothing.
type Need struct {
	// Floor is the slot, at Commitment, the answer must reach; 0: none.
	Floor      uint64
	Commitment Commitment
	// Answer marks a read whose answer is the endpoint's slot itself
	// (getSlot): Floor is then compared with the slots the endpoint
	// reported, which may run ahead of its banks; otherwise with the
	// latest slot a bank of it served or refused a read at.
	Answer bool
}
