package admission_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/rolestate"
	"github.com/solroute/solroute/internal/slots"
	"github.com/solroute/solroute/pool"
)

// sawOn records that endpoint name answered at slot, commitment c,
// through a read admitted there.
func sawOn(t *testing.T, p *admission.Pool, name string, c slots.Commitment, slot uint64) {
	t.Helper()
	req := admission.Request{Role: endpoint.RoleRead, Method: "getBalance", Endpoint: name}
	pm := now(t, p, req, name)
	pm.SawSlot(c, slot)
	pm.Done(success())
}

// standing is name's lag and standing in its snapshot.
func standing(t *testing.T, p *admission.Pool, name string) (int64, endpoint.SlotStanding) {
	t.Helper()
	s := snapshotOf(t, p, name)
	return s.SlotLag, s.SlotStanding
}

func threeReaders(t *testing.T, edit func(*pool.Settings, *admission.Options)) (*admission.Pool, func(time.Duration)) {
	t.Helper()
	p, fc := newPoolWith(t, edit, rw("a", 0, endpoint.Limits{}), rw("b", 0, endpoint.Limits{}), rw("c", 0, endpoint.Limits{}))
	return p, fc.Advance
}

func TestLaggingEndpointIsALastResort(t *testing.T) {
	p, _ := threeReaders(t, nil)
	sawOn(t, p, "a", slots.Confirmed, 1000)
	sawOn(t, p, "b", slots.Confirmed, 998)
	sawOn(t, p, "c", slots.Confirmed, 900)

	if lag, s := standing(t, p, "c"); lag != 100 || s != endpoint.Lagging {
		t.Fatalf("c: lag %d %v, want 100 lagging", lag, s)
	}
	if lag, s := standing(t, p, "b"); lag != 2 || s != endpoint.InStep {
		t.Fatalf("b: lag %d %v, want 2 in-step", lag, s)
	}
	if ref, ok := p.ReferenceSlot(slots.Confirmed); !ok || ref != 1000 {
		t.Fatalf("reference %d %v, want 1000", ref, ok)
	}
	// Reads and sends alike avoid c while a or b can be had.
	if got := tally(t, p, 30); got["c"] != 0 {
		t.Fatalf("reads: %v, want none on c", got)
	}
	send := admission.Request{Role: endpoint.RoleSend, Method: "sendTransaction"}
	for range 6 {
		pm, err := p.Acquire(context.Background(), send)
		if err != nil {
			t.Fatal(err)
		}
		if pm.Endpoint() == "c" {
			t.Fatal("a send went to the lagging endpoint")
		}
		pm.Done(success())
	}
	// When a and b are out (avoided), c still serves: a last resort, at
	// once, not a refusal.
	req := read
	req.Avoid = []string{"a", "b"}
	now(t, p, req, "c").Done(success())
}

func TestLaggingEndpointServesWhenTheOthersAreBusy(t *testing.T) {
	p, _ := newPool(t, rw("a", 0, endpoint.Limits{MaxConcurrentRequests: 1}),
		rw("b", 0, endpoint.Limits{MaxConcurrentRequests: 1}), rw("c", 0, endpoint.Limits{}))
	sawOn(t, p, "a", slots.Finalized, 500)
	sawOn(t, p, "b", slots.Finalized, 500)
	sawOn(t, p, "c", slots.Finalized, 300)
	pa := now(t, p, admission.Request{Role: endpoint.RoleRead, Endpoint: "a"}, "a")
	pb := now(t, p, admission.Request{Role: endpoint.RoleRead, Endpoint: "b"}, "b")
	// Both in-step endpoints busy: the lagging one is taken at once (no
	// patience: a read from a lagging node is refused by minContextSlot
	// when that matters, and otherwise beats waiting).
	now(t, p, read, "c").Done(success())
	pa.Done(success())
	pb.Done(success())
}

func TestOneLiarCannotMakeTheOthersLag(t *testing.T) {
	p, _ := threeReaders(t, nil)
	sawOn(t, p, "a", slots.Processed, 1_000_000_000_000_000_000)
	sawOn(t, p, "b", slots.Processed, 1000)
	sawOn(t, p, "c", slots.Processed, 995)

	if ref, ok := p.ReferenceSlot(slots.Processed); !ok || ref != 1000 {
		t.Fatalf("reference %d %v, want 1000 (the liar is not corroborated)", ref, ok)
	}
	for _, n := range []string{"b", "c"} {
		if _, s := standing(t, p, n); s != endpoint.InStep {
			t.Fatalf("%s: %v, want in-step", n, s)
		}
	}
	if _, s := standing(t, p, "a"); s != endpoint.Outlier {
		t.Fatalf("liar: %v, want outlier", s)
	}
	if got := tally(t, p, 30); got["a"] != 0 || got["b"] == 0 || got["c"] == 0 {
		t.Fatalf("reads: %v, want b and c only", got)
	}
}

func TestTwoLiarsAgreeingAreBelieved(t *testing.T) {
	// Corroboration is one other endpoint, not a majority: two endpoints
	// ahead together are the reference (a healthy pair ahead of a lagging
	// third is the common case this serves).
	p, _ := threeReaders(t, nil)
	sawOn(t, p, "a", slots.Processed, 5000)
	sawOn(t, p, "b", slots.Processed, 5010)
	sawOn(t, p, "c", slots.Processed, 1000)
	if _, s := standing(t, p, "c"); s != endpoint.Lagging {
		t.Fatalf("c: %v, want lagging", s)
	}
}

func TestTwoEndpointsThatDisagreeHaveNoReference(t *testing.T) {
	p, _ := newPool(t, rw("a", 0, endpoint.Limits{}), rw("b", 0, endpoint.Limits{}))
	sawOn(t, p, "a", slots.Confirmed, 1000)
	sawOn(t, p, "b", slots.Confirmed, 900)
	if _, ok := p.ReferenceSlot(slots.Confirmed); ok {
		t.Fatal("a reference from two endpoints 100 slots apart: one of them could be lying")
	}
	for _, n := range []string{"a", "b"} {
		if lag, s := standing(t, p, n); lag != 0 || s != endpoint.InStep {
			t.Fatalf("%s: lag %d %v, want unknown", n, lag, s)
		}
	}
}

func TestRestartedEndpointsMarkFallsBack(t *testing.T) {
	p, _ := threeReaders(t, nil)
	sawOn(t, p, "a", slots.Confirmed, 1000)
	sawOn(t, p, "b", slots.Confirmed, 1000)
	sawOn(t, p, "c", slots.Confirmed, 1000)
	// c restarts from a snapshot 400 slots old: its mark follows it down,
	// and it lags.
	sawOn(t, p, "c", slots.Confirmed, 600)
	if s := snapshotOf(t, p, "c"); s.Slot != 600 || s.SlotStanding != endpoint.Lagging || s.SlotLag != 400 {
		t.Fatalf("c after restart: slot %d lag %d %v, want 600, 400, lagging", s.Slot, s.SlotLag, s.SlotStanding)
	}
	// A processed fork switch steps back a few slots: the mark stays.
	sawOn(t, p, "a", slots.Confirmed, 997)
	if s := snapshotOf(t, p, "a"); s.Slot != 1000 {
		t.Fatalf("a after a 3-slot step back: mark %d, want 1000", s.Slot)
	}
	// c catches up: in step again.
	sawOn(t, p, "c", slots.Confirmed, 999)
	if _, s := standing(t, p, "c"); s != endpoint.InStep {
		t.Fatalf("c caught up: %v, want in-step", s)
	}
}

func TestCommitmentsAreNotCompared(t *testing.T) {
	// Finalized trails processed by ~32 slots on every node: an endpoint
	// answering finalized reads is not behind one answering processed.
	p, _ := threeReaders(t, nil)
	sawOn(t, p, "a", slots.Processed, 1000)
	sawOn(t, p, "b", slots.Processed, 1000)
	sawOn(t, p, "c", slots.Finalized, 968)
	if _, s := standing(t, p, "c"); s != endpoint.InStep {
		t.Fatalf("c: %v, want in-step (no other finalized slot to compare with)", s)
	}
}

func TestLagAgesOutAndMarksExtrapolate(t *testing.T) {
	p, advance := threeReaders(t, nil)
	sawOn(t, p, "a", slots.Confirmed, 1000)
	sawOn(t, p, "b", slots.Confirmed, 1000)
	sawOn(t, p, "c", slots.Confirmed, 900)
	// 8 s later a answers at 1020: b, silent since, is extrapolated to
	// 1020 too (a slot per 400 ms), not 20 behind.
	advance(8 * time.Second)
	sawOn(t, p, "a", slots.Confirmed, 1020)
	if lag, s := standing(t, p, "b"); lag != 0 || s != endpoint.InStep {
		t.Fatalf("b: lag %d %v, want 0 in-step", lag, s)
	}
	if lag, s := standing(t, p, "c"); lag != 100 || s != endpoint.Lagging {
		t.Fatalf("c: lag %d %v, want 100 lagging", lag, s)
	}
	// With no news of c for 30 s, its lag is no longer known: it is tried
	// again (its answer, or its -32016, tells where it is now).
	advance(30 * time.Second)
	sawOn(t, p, "a", slots.Confirmed, 1095)
	sawOn(t, p, "b", slots.Confirmed, 1095)
	if lag, s := standing(t, p, "c"); lag != 0 || s != endpoint.InStep {
		t.Fatalf("c after 30 s of silence: lag %d %v, want unknown", lag, s)
	}
}

func TestLagAgesOutWithoutAnswers(t *testing.T) {
	p, advance := threeReaders(t, nil)
	sawOn(t, p, "a", slots.Confirmed, 1000)
	sawOn(t, p, "b", slots.Confirmed, 1000)
	sawOn(t, p, "c", slots.Confirmed, 900)
	advance(31 * time.Second)
	// No answer since: an Acquire recomputes (at most once a second) and
	// finds nothing known, so c is no longer held back.
	got := tally(t, p, 30)
	if got["c"] == 0 {
		t.Fatalf("reads after every mark aged out: %v, want c used", got)
	}
}

func TestMaxSlotLagZeroTurnsRoutingOff(t *testing.T) {
	p, _ := threeReaders(t, func(s *pool.Settings, _ *admission.Options) { s.MaxSlotLag = 0 })
	sawOn(t, p, "a", slots.Confirmed, 1000)
	sawOn(t, p, "b", slots.Confirmed, 1000)
	sawOn(t, p, "c", slots.Confirmed, 900)
	if s := snapshotOf(t, p, "c"); s.Slot != 900 || s.SlotStanding != endpoint.InStep {
		t.Fatalf("c: slot %d %v, want 900 shown, in-step", s.Slot, s.SlotStanding)
	}
	if _, ok := p.ReferenceSlot(slots.Confirmed); ok {
		t.Fatal("a reference with routing off")
	}
	if got := tally(t, p, 30); got["c"] != 10 {
		t.Fatalf("reads: %v, want c its even share", got)
	}
}

func TestMaxSlotLagIsValidated(t *testing.T) {
	for _, v := range []int{-1, 100_001} {
		s := pool.DefaultSettings()
		s.MaxSlotLag = v
		var pe *endpoint.Problem
		if err := s.Validate(); !errors.As(err, &pe) || pe.Path != "max_slot_lag" {
			t.Errorf("MaxSlotLag %d: %v, want a max_slot_lag problem", v, err)
		}
	}
}

func TestHeldEndpointServesOnlyItsCheck(t *testing.T) {
	p, fc := newPool(t, rw("a", 0, endpoint.Limits{}), rw("b", 0, endpoint.Limits{}))
	p.Hold("a")
	p.Hold("b")
	// No call is admitted while every endpoint awaits its check; it waits.
	pd := start(context.Background(), p, read)
	pd.mustWait(t, fc, 1)
	// The check itself names its endpoint and is admitted.
	check := now(t, p, admission.Request{Role: endpoint.RoleRead, Method: "getGenesisHash", Endpoint: "a"}, "a")
	check.Done(success())
	pd.mustWait(t, fc, 1)
	// Verified, a wakes the waiting call at once.
	p.Verify("a")
	pd.permit(t, "a").Done(success())
	if got := tally(t, p, 10); got["b"] != 0 {
		t.Fatalf("reads: %v, want none on the unverified b", got)
	}
	// Excluded, b is out for good, even for requests that name it.
	p.Exclude("b", "serves devnet; the configuration says mainnet-beta")
	s := snapshotOf(t, p, "b")
	if s.Verification != endpoint.WrongCluster || s.Excluded != "serves devnet; the configuration says mainnet-beta" {
		t.Fatalf("b: %v %q", s.Verification, s.Excluded)
	}
	p.Verify("b") // too late: exclusion is final
	if pm := p.TryAcquire(admission.Request{Role: endpoint.RoleRead, Endpoint: "b"}); pm != nil {
		pm.Release()
		t.Fatal("a request reached an excluded endpoint")
	}
	pd = start(context.Background(), p, admission.Request{Role: endpoint.RoleRead, Method: "getSlot", Endpoint: "b",
		Deadline: fc.Now().Add(ms(10))})
	pd.waitsFor(t, fc, ms(10))
	err := pd.get(t).err
	var de *admission.DeadlineError
	if !errors.As(err, &de) || len(de.Candidates) != 1 || de.Candidates[0].Block.Reason != rolestate.BlockedByCluster {
		t.Fatalf("Acquire on the excluded endpoint: %v", err)
	}
}

func TestLaggingEndpointBelowTheAskedSlotIsNeverTried(t *testing.T) {
	p, fc := newPool(t, rw("a", 0, endpoint.Limits{MaxConcurrentRequests: 1}),
		rw("b", 0, endpoint.Limits{MaxConcurrentRequests: 1}), rw("c", 0, endpoint.Limits{}))
	sawOn(t, p, "a", slots.Confirmed, 1000)
	sawOn(t, p, "b", slots.Confirmed, 1000)
	sawOn(t, p, "c", slots.Confirmed, 900)
	pa := now(t, p, admission.Request{Role: endpoint.RoleRead, Endpoint: "a"}, "a")
	pb := now(t, p, admission.Request{Role: endpoint.RoleRead, Endpoint: "b"}, "b")
	// A read that needs slot 990 waits for a or b: c, at ~900, could only
	// refuse it.
	need := read
	need.Slot.Floor, need.Slot.Commitment = 990, slots.Confirmed
	need.Deadline = fc.Now().Add(ms(50))
	pd := start(context.Background(), p, need)
	pd.mustWait(t, fc, 1)
	pa.Done(success())
	pd.permit(t, "a").Done(success())
	// One that needs 800 takes c at once, as a last resort.
	pa = now(t, p, admission.Request{Role: endpoint.RoleRead, Endpoint: "a"}, "a")
	low := read
	low.Slot.Floor, low.Slot.Commitment = 800, slots.Confirmed
	now(t, p, low, "c").Done(success())
	// At a commitment where c's slot is not known, it is an ordinary last
	// resort.
	other := read
	other.Slot.Floor, other.Slot.Commitment = 990, slots.Finalized
	now(t, p, other, "c").Done(success())
	pa.Done(success())
	pb.Done(success())
	// And the deadline error says why c was not used.
	pa = now(t, p, admission.Request{Role: endpoint.RoleRead, Endpoint: "a"}, "a")
	pb = now(t, p, admission.Request{Role: endpoint.RoleRead, Endpoint: "b"}, "b")
	need.Deadline = fc.Now().Add(ms(10))
	pd = start(context.Background(), p, need)
	pd.waitsFor(t, fc, ms(10))
	var de *admission.DeadlineError
	if err := pd.get(t).err; !errors.As(err, &de) || !de.Candidates[2].OffSlot {
		t.Fatalf("deadline error %v", err)
	}
	pa.Done(success())
	pb.Done(success())
}

// TestAgreedSlotIsNeverExtrapolated (issue 20, item 9): the agreed slot
// is the highest slot two endpoints each reported, whatever the clock
// says since; the reference may run ahead by extrapolation (a ceiling),
// the agreed slot never does (a floor).
func TestAgreedSlotIsNeverExtrapolated(t *testing.T) {
	p, advance := threeReaders(t, nil)
	sawOn(t, p, "a", slots.Confirmed, 1000)
	sawOn(t, p, "b", slots.Confirmed, 998)
	sawOn(t, p, "c", slots.Confirmed, 1_000_000) // a liar: no one comes near
	if got, ok := p.AgreedSlot(slots.Confirmed); !ok || got != 998 {
		t.Fatalf("agreed %d %v, want 998: the slot a and b both reached", got, ok)
	}
	// Ten silent seconds: the reference is extrapolated 25 slots on, the
	// agreed slot stays where the answers were.
	advance(10 * time.Second)
	if ref, ok := p.ReferenceSlot(slots.Confirmed); !ok || ref != 1025 {
		t.Fatalf("reference %d %v, want 1025", ref, ok)
	}
	if got, ok := p.AgreedSlot(slots.Confirmed); !ok || got != 998 {
		t.Fatalf("agreed after 10 s %d %v, want 998", got, ok)
	}
	// No reference, no agreed slot.
	q, _ := newPool(t, rw("a", 0, endpoint.Limits{}), rw("b", 0, endpoint.Limits{}))
	sawOn(t, q, "a", slots.Confirmed, 1000)
	sawOn(t, q, "b", slots.Confirmed, 900)
	if _, ok := q.AgreedSlot(slots.Confirmed); ok {
		t.Fatal("an agreed slot from two endpoints that disagree")
	}
}

// TestReferenceFollowsAStalledChain (issue 20, item 9): every endpoint
// answers the same slot for a minute. No mark moves, yet the reference
// follows the answers: it does not age out (it did after 30 s), the
// agreed slot stays the slot answered, and an endpoint that stopped
// answering is not taken for an outlier for its extrapolated mark.
func TestReferenceFollowsAStalledChain(t *testing.T) {
	p, advance := threeReaders(t, nil)
	for _, n := range []string{"a", "b", "c"} {
		sawOn(t, p, n, slots.Confirmed, 1000)
	}
	for i := 1; i <= 60; i++ {
		advance(time.Second)
		sawOn(t, p, "a", slots.Confirmed, 1000)
		sawOn(t, p, "b", slots.Confirmed, 1000)
		// (The reference may run ahead by up to the lag: c's mark,
		// extrapolated, is corroborated by b's.)
		ref, ok := p.ReferenceSlot(slots.Confirmed)
		if !ok || ref > 1000+uint64(pool.DefaultSettings().MaxSlotLag)+3 {
			t.Fatalf("after %d s of stall: reference %d %v, want at most 1019", i, ref, ok)
		}
		if got, ok := p.AgreedSlot(slots.Confirmed); !ok || got != 1000 {
			t.Fatalf("after %d s of stall: agreed %d %v, want 1000", i, got, ok)
		}
		if i < 30 { // c's mark is fresh: extrapolated ahead, yet it claimed nothing ahead
			if _, s := standing(t, p, "c"); s != endpoint.InStep {
				t.Fatalf("after %d s: c, silent, is %v", i, s)
			}
		}
	}
}
