package admission_test

import (
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/slots"
)

// Unknown is not ahead (plans/009-consistency.md): an endpoint whose slot
// nothing fresh tells may be where a read's floor is, and a first attempt
// may go and find out; but one that does not answer never tells its
// slot, and a retry spent on it is lost where a peer a slot short would
// have answered a moment later. These are the soak's dead reader
// (fixtures.Mainnet's "dead") during a stall.

// deadBesideShort is a pool of a and b, whose banks were read at 999
// (confirmed), and d, which hung once and never reported a slot: d is
// Degraded, unread. A read needing 1000 finds a and b a slot short.
func deadBesideShort(t *testing.T) (*admission.Pool, func(time.Duration)) {
	t.Helper()
	p, fc := newPool(t, rw("a", 0, endpoint.Limits{}), rw("b", 0, endpoint.Limits{}), rw("d", 0, endpoint.Limits{}))
	pm := now(t, p, only("d"), "d")
	fc.Advance(500 * time.Millisecond)
	pm.Done(hangTimeout)
	bankOn(t, p, "a", slots.Confirmed, 999)
	bankOn(t, p, "b", slots.Confirmed, 999)
	if h := snapshotOf(t, p, "d").State; h != endpoint.Degraded {
		t.Fatalf("d is %v, want degraded", h)
	}
	return p, fc.Advance
}

// retryAt is a read's retry that must reach slot at confirmed, having
// failed on avoid.
func retryAt(slot uint64, avoid ...string) admission.Request {
	r := atSlot(slot)
	r.Retry, r.Avoid = true, avoid
	return r
}

func TestRetryIsNotSpentOnAnUnreadFailure(t *testing.T) {
	p, _ := deadBesideShort(t)
	// A first attempt may still go and find out: d, not known short,
	// comes before a and b, a slot short.
	now(t, p, atSlot(1000), "d").Release()
	// A retry does not: d is a last resort with a and b, and the
	// balancer, whose failure penalty d carries, takes a or b.
	if got := tallyReq(t, p, retryAt(1000), 30); got["d"] != 0 {
		t.Fatalf("retries: %v, want none on d", got)
	}
}

func TestRetryIsNotSentToAnUnreadFailureOverTheAvoided(t *testing.T) {
	p, _ := deadBesideShort(t)
	// The retry failed on a and b (refused: a slot short). d is not a
	// reason to keep it off them: Avoid does not apply, and they come
	// before d.
	if p.HasAlternative(retryAt(1000, "a", "b"), []string{"a", "b"}) {
		t.Error("HasAlternative: d, unread and failed, counted as somewhere else to go")
	}
	if got := tallyReq(t, p, retryAt(1000, "a", "b"), 30); got["d"] != 0 {
		t.Fatalf("retries avoiding a and b: %v, want none on d", got)
	}
	// A read without a floor keeps Avoid: d is elsewhere.
	plain := read
	plain.Retry, plain.Avoid = true, []string{"a", "b"}
	if !p.HasAlternative(plain, plain.Avoid) {
		t.Error("HasAlternative without a floor: d not counted")
	}
	now(t, p, plain, "d").Release()
}

func TestNotYetRetryDoesNotRunToAnUnreadFailure(t *testing.T) {
	p, _ := deadBesideShort(t)
	// a refused: the retry waits for the chain (nearest gap 1 slot, b's)
	// rather than run at once to d.
	elsewhere, nearest := p.SlotElsewhere(retryAt(1000, "a"), []string{"a"})
	if elsewhere || nearest != 1 {
		t.Fatalf("SlotElsewhere = %v, %d; want false, 1 (b a slot short; d is no elsewhere)", elsewhere, nearest)
	}
}

func TestAnsweringUnreadEndpointStillCounts(t *testing.T) {
	p, fc := newPool(t, rw("a", 0, endpoint.Limits{}), rw("e", 0, endpoint.Limits{}))
	bankOn(t, p, "a", slots.Confirmed, 999)
	// e answered (Available) and nothing fresh tells its slot: it may
	// have the floor, for a retry too.
	now(t, p, only("e"), "e").Done(success())
	fc.Advance(2 * time.Second) // e's reading, had it one, is stale now
	bankOn(t, p, "a", slots.Confirmed, 1004)
	if elsewhere, _ := p.SlotElsewhere(retryAt(1010, "a"), []string{"a"}); !elsewhere {
		t.Error("SlotElsewhere: e, answering and unread, not counted")
	}
	if got := tallyReq(t, p, retryAt(1010), 20); got["e"] == 0 {
		t.Fatalf("retries: %v, want e (not known short) preferred over a (short)", got)
	}
}

func TestHangingFromTheStartIsUnanswered(t *testing.T) {
	p, _ := newPool(t, rw("a", 0, endpoint.Limits{}), rw("d", 0, endpoint.Limits{}))
	bankOn(t, p, "a", slots.Confirmed, 999)
	// d has a request in flight and has never answered: Available, but
	// nothing says it answers. A retry at 1000 is not sent to it ahead of
	// a, a slot short.
	hung := now(t, p, only("d"), "d")
	defer hung.Release()
	if h := snapshotOf(t, p, "d").State; h != endpoint.Available {
		t.Fatalf("d is %v, want available (the premise)", h)
	}
	if got := tallyReq(t, p, retryAt(1000), 20); got["d"] != 0 {
		t.Fatalf("retries: %v, want none on d", got)
	}
}

// TestSlotElsewhereCountsAnOutlierAtTheSlot: the liar, an outlier ahead
// of the reference, is the only endpoint at a getSlot floor its own answer
// set. The acquire tries an endpoint off the reference at once unless it
// is known below the floor; so SlotElsewhere counts it too, and a read
// refused by b does not stop for a wait it cannot finish.
func TestSlotElsewhereCountsAnOutlierAtTheSlot(t *testing.T) {
	p, _ := threeReaders(t, nil)
	sawOn(t, p, "a", slots.Processed, 2000)
	sawOn(t, p, "b", slots.Processed, 1000)
	sawOn(t, p, "c", slots.Processed, 995)
	if _, s := standing(t, p, "a"); s != endpoint.Outlier {
		t.Fatalf("a: %v, want outlier (the premise)", s)
	}
	getSlot := admission.Request{Role: endpoint.RoleRead, Method: "getSlot", Retry: true}
	getSlot.Slot = slots.Need{Floor: 2000, Commitment: slots.Processed, Answer: true}
	if elsewhere, _ := p.SlotElsewhere(getSlot, []string{"b"}); !elsewhere {
		t.Error("SlotElsewhere: a, off the reference at the floor, not counted")
	}
	// Known below the floor, an endpoint off the reference is never tried,
	// and is no elsewhere.
	getSlot.Slot.Floor = 2010
	sawOn(t, p, "a", slots.Processed, 2001)
	if elsewhere, _ := p.SlotElsewhere(getSlot, []string{"b", "c"}); elsewhere {
		t.Error("SlotElsewhere: a, off the reference and below the floor, counted")
	}
}

// TestTieNeverPutsTheCostlierFirst: a and b are idle with no latency (a
// tie); d has a request in flight and no answer yet (the costliest). When
// the draw picks a and b, the tie once returned the round-robin order,
// whose start could be d: d went first without being drawn.
func TestTieNeverPutsTheCostlierFirst(t *testing.T) {
	p, _ := newPool(t, rw("a", 0, endpoint.Limits{}), rw("b", 0, endpoint.Limits{}), rw("d", 0, endpoint.Limits{}))
	hung := now(t, p, only("d"), "d")
	defer hung.Release()
	if got := firsts(t, p, read, 300); got["d"] != 0 || got["a"] == 0 || got["b"] == 0 {
		t.Fatalf("reads: %v, want a and b only", got)
	}
}
