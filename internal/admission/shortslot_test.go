package admission_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/slots"
	"github.com/solroute/solroute/pool"
)

// The slot-aware choice (issue 20, N1 and N2): a read that carries a
// floor (Request.Slot) goes first to endpoints not known to be short
// of it, by their banks' latest reading (Permit.SawBank), or, for a slot
// answer (Request.Slot.Answer), by the slots they reported.

// bankOn records that a bank of name served a read at slot, commitment c.
func bankOn(t *testing.T, p *admission.Pool, name string, c slots.Commitment, slot uint64) {
	t.Helper()
	pm := now(t, p, admission.Request{Role: endpoint.RoleRead, Method: "getBalance", Endpoint: name}, name)
	pm.SawBank(c, slot)
	pm.Done(success())
}

// atSlot is a read of getBalance that must reach slot at confirmed.
func atSlot(slot uint64) admission.Request {
	r := read
	r.Slot.Floor, r.Slot.Commitment = slot, slots.Confirmed
	return r
}

// oneAtATime are three readers that take one request at a time.
func oneAtATime(t *testing.T) (*admission.Pool, func(time.Duration)) {
	t.Helper()
	one := endpoint.Limits{MaxConcurrentRequests: 1}
	p, fc := newPool(t, rw("a", 0, one), rw("b", 0, one), rw("c", 0, one))
	return p, fc.Advance
}

func TestReadGoesWhereItsSlotIs(t *testing.T) {
	p, advance := oneAtATime(t)
	bankOn(t, p, "a", slots.Confirmed, 1000)
	bankOn(t, p, "b", slots.Confirmed, 998)
	bankOn(t, p, "c", slots.Confirmed, 1000)
	if got := tallyReq(t, p, atSlot(1000), 30); got["b"] != 0 || got["a"] == 0 || got["c"] == 0 {
		t.Fatalf("reads at 1000: %v, want them shared by a and c, none on b (2 short)", got)
	}
	// A read that needs no more than b has may go there.
	if n := tallyReq(t, p, atSlot(998), 30)["b"]; n == 0 {
		t.Fatal("no read at 998 went to b")
	}
	// Extrapolated: 800 ms later b is taken to be at 1000.
	advance(800 * time.Millisecond)
	if n := tallyReq(t, p, atSlot(1000), 30)["b"]; n == 0 {
		t.Fatal("b, 800 ms after its reading at 998, still taken to be short of 1000")
	}
}

func TestShortEndpointAfterAMomentsPatience(t *testing.T) {
	p, fc := newPool(t, rw("a", 0, endpoint.Limits{MaxConcurrentRequests: 1}), rw("b", 0, endpoint.Limits{}))
	bankOn(t, p, "a", slots.Confirmed, 1000)
	bankOn(t, p, "b", slots.Confirmed, 999)
	busy := now(t, p, admission.Request{Role: endpoint.RoleRead, Endpoint: "a"}, "a")
	// a, at the slot, is busy: the read waits for it up to one slot
	// (400 ms) before it takes b.
	req := atSlot(1000)
	req.Deadline = fc.Now().Add(10 * time.Second)
	pd := start(context.Background(), p, req)
	pd.waitsFor(t, fc, 400*time.Millisecond)
	pd.permit(t, "b").Done(success())
	// Freed within the patience, a takes it. (b's reading is taken
	// again: 400 ms later, extrapolated, it would be at 1000.)
	bankOn(t, p, "b", slots.Confirmed, 999)
	pd = start(context.Background(), p, req)
	pd.mustWait(t, fc, 1)
	busy.Done(success())
	busy = pd.permit(t, "a")
	// The patience is at most half the time left.
	req.Deadline = fc.Now().Add(200 * time.Millisecond)
	pd = start(context.Background(), p, req)
	pd.waitsFor(t, fc, 100*time.Millisecond)
	pd.permit(t, "b").Done(success())
	busy.Done(success())
}

func TestShortOfTheSlotIsOnlyAPreference(t *testing.T) {
	p, advance := oneAtATime(t)
	for _, n := range []string{"a", "b", "c"} {
		bankOn(t, p, n, slots.Confirmed, 990)
	}
	// Every endpoint short: the read goes at once, as before.
	if got := tallyReq(t, p, atSlot(1000), 9); len(got) != 3 {
		t.Fatalf("reads when every endpoint is short: %v, want the usual spread", got)
	}
	// A reading older than a second is not trusted to exclude.
	bankOn(t, p, "a", slots.Confirmed, 1000)
	advance(time.Second)
	bankOn(t, p, "a", slots.Confirmed, 1000)
	if got := tallyReq(t, p, atSlot(1000), 9); got["b"] == 0 || got["c"] == 0 {
		t.Fatalf("reads after the others' readings aged: %v, want b and c tried", got)
	}
}

func TestSlotAnswerIsJudgedByTheSlotsReported(t *testing.T) {
	p, _ := oneAtATime(t)
	bankOn(t, p, "a", slots.Confirmed, 1000)
	bankOn(t, p, "b", slots.Confirmed, 1000)
	// ahead's getSlot claims 1003; its banks serve at 1000.
	pm := now(t, p, admission.Request{Role: endpoint.RoleRead, Method: "getSlot", Endpoint: "c"}, "c")
	pm.SawSlot(slots.Confirmed, 1003)
	pm.Done(success())
	bankOn(t, p, "c", slots.Confirmed, 1000)
	slot := atSlot(1003)
	slot.Slot.Answer = true
	if got := tallyReq(t, p, slot, 9); got["c"] != 9 {
		t.Fatalf("getSlot held to 1003: %v, want c alone (it claimed 1003)", got)
	}
	// A read of a bank at 1003: every bank is short, so none is preferred.
	if got := tallyReq(t, p, atSlot(1003), 9); len(got) != 3 {
		t.Fatalf("a bank read held to 1003: %v, want the usual spread", got)
	}
}

func TestSlotElsewhere(t *testing.T) {
	p, _ := oneAtATime(t)
	bankOn(t, p, "a", slots.Confirmed, 1000)
	bankOn(t, p, "b", slots.Confirmed, 998)
	// c has no reading: it may be at the slot.
	for _, c := range []struct {
		avoid   []string
		slot    uint64
		want    bool
		nearest uint64
	}{
		{[]string{"b"}, 1000, true, 0},
		{[]string{"b", "a"}, 1000, true, 0}, // c, unknown
		{[]string{"b", "c"}, 1000, true, 0}, // a
		{[]string{"a", "c"}, 1000, false, 2},
		{[]string{"a", "c"}, 998, true, 0},
		{[]string{"a", "c"}, 0, true, 0}, // no floor: HasAlternative
		{[]string{"a", "b", "c"}, 998, false, 0},
		{[]string{"c"}, 1003, false, 3}, // a is 3 short, b 5: the nearer
	} {
		req := atSlot(c.slot)
		if got, nearest := p.SlotElsewhere(req, c.avoid); got != c.want || nearest != c.nearest {
			t.Errorf("SlotElsewhere(%d, avoid %v) = %v, %d; want %v, %d", c.slot, c.avoid, got, nearest, c.want, c.nearest)
		}
	}
}

func TestDeadlineErrorNamesTheShort(t *testing.T) {
	p, fc := newPool(t, rw("a", 0, endpoint.Limits{MaxConcurrentRequests: 1}), rw("b", 0, endpoint.Limits{MaxConcurrentRequests: 1}))
	bankOn(t, p, "a", slots.Confirmed, 1000)
	bankOn(t, p, "b", slots.Confirmed, 999)
	pa := now(t, p, admission.Request{Role: endpoint.RoleRead, Endpoint: "a"}, "a")
	pb := now(t, p, admission.Request{Role: endpoint.RoleRead, Endpoint: "b"}, "b")
	req := atSlot(1000)
	req.Deadline = fc.Now().Add(ms(10))
	pd := start(context.Background(), p, req)
	pd.mustWait(t, fc, 1)
	fc.Advance(ms(10))
	var de *admission.DeadlineError
	err := pd.get(t).err
	if !errors.As(err, &de) || de.Candidates[0].ShortOfSlot || !de.Candidates[1].ShortOfSlot ||
		!strings.Contains(err.Error(), "short of the slot asked") {
		t.Fatalf("deadline error %v, want b named short of the slot", err)
	}
	pa.Done(success())
	pb.Done(success())
}

// tallyReq acquires n permits for req on the fast path, reports a
// success for each, and counts them by endpoint.
func tallyReq(t *testing.T, p *admission.Pool, req admission.Request, n int) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for range n {
		pm, err := p.Acquire(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		counts[pm.Endpoint()]++
		pm.Done(success())
	}
	return counts
}

// BenchmarkAcquireAtSlot is a read with a floor over three endpoints,
// one of them short of it (the slot-aware choice's path: a reading per
// candidate, and the last-resort marks allocated), against the same
// read with no floor (BenchmarkAcquireAtSlot/none), in the same run, on
// a fake clock (its Now takes a lock: compare the two, not with the
// other benchmarks).
func BenchmarkAcquireAtSlot(b *testing.B) {
	for _, floor := range []uint64{0, 1000} {
		name := "none"
		if floor > 0 {
			name = "one-short"
		}
		b.Run(name, func(b *testing.B) {
			// On a clock that does not move, so the readings stay fresh.
			specs := []endpoint.Spec{ep("ep-0", 0, benchLimits), ep("ep-1", 0, benchLimits), ep("ep-2", 0, benchLimits)}
			p, err := admission.New(specs, pool.DefaultSettings(), admission.Options{Clock: clockwork.NewFakeClockAt(t0)})
			if err != nil {
				b.Fatal(err)
			}
			for i, slot := range []uint64{1000, 998, 1000} {
				pm := p.TryAcquire(admission.Request{Role: endpoint.RoleRead, Endpoint: fmt.Sprintf("ep-%d", i)})
				pm.SawBank(slots.Confirmed, slot)
				pm.Done(success())
			}
			req := atSlot(floor)
			b.ReportAllocs()
			for b.Loop() {
				pm, err := p.Acquire(context.Background(), req)
				if err != nil {
					b.Fatal(err)
				}
				pm.Done(success())
			}
		})
	}
}
