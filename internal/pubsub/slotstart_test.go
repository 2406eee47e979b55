package pubsub_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc/ws"

	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/pubsub"
)

// slotHoles lists the slots a slot subscription skipped after its first
// delivery ("5001 then 5003"), and the deliveries out of order or twice.
func slotHoles(got []pubsub.Notification[*ws.SlotResult]) (holes []string, disordered int) {
	for i := 1; i < len(got); i++ {
		prev, cur := got[i-1], got[i]
		switch {
		case cur.Slot <= prev.Slot:
			disordered++
		case cur.Slot > prev.Slot+1:
			holes = append(holes, fmt.Sprintf("%d (%s) then %d (%s): %d missed",
				prev.Slot, prev.Endpoint, cur.Slot, cur.Endpoint, cur.Slot-prev.Slot-1))
		}
	}
	return holes, disordered
}

// checkSlotRun fails the test on a hole or a disorder in got, or on too
// few deliveries.
func checkSlotRun(t *testing.T, got []pubsub.Notification[*ws.SlotResult], atLeast int) {
	t.Helper()
	if len(got) < atLeast {
		t.Fatalf("%d slots delivered, want at least %d", len(got), atLeast)
	}
	holes, disordered := slotHoles(got)
	if len(holes) > 0 || disordered > 0 {
		t.Errorf("slots %d to %d: holes %v, %d out of order or twice", got[0].Slot, got[len(got)-1].Slot, holes, disordered)
	}
}

// TestSlotStartLaggardFirst is the slot stream's start-up hole: endpoint
// a is 5 slots behind b and c, and its heartbeat is live first (b's and
// c's handshakes take half a slot more than a's first notification). a is
// killed before it reaches the slot b and c subscribed at. Every slot
// from the subscription's first delivery on must come, once, in order:
// the slots b and c processed before their subscribes, which a had not
// reached when it died, must not be the subscription's.
func TestSlotStartLaggardFirst(t *testing.T) {
	slow := fixtures.PubSubOptions{Faults: fixtures.PubSubFaults{HandshakeDelay: slot + slot/4}}
	members := []member{
		{name: "a", ps: fixtures.PubSubOptions{Faults: fixtures.PubSubFaults{Lag: 5}}},
		{name: "b", ps: slow}, {name: "c", ps: slow},
	}
	e := newEnv(t, members, redundancy(2))
	sub, err := e.eng.SlotSubscribe(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	e.step(slot)     // a's first heartbeat: start−4
	e.step(slot / 4) // b and c up: they subscribe at start+1
	e.step(slot * 3 / 4)
	e.step(slot) // a notifies start−2; b and c start+3
	e.ps["a"].SetDown(true)
	e.steps(8)
	got := drain(t, sub)
	checkSlotRun(t, got, 8)
	if err := sub.Err(); err != nil {
		t.Fatalf("the subscription ended: %v", err)
	}
}

// TestSlotJoinWhileLagging: the only live connection (a) is 3 slots
// behind when a fresh one (b) joins. b's first slots wait until a has
// delivered the slots before them, then flow from b: no slot is skipped.
func TestSlotJoinWhileLagging(t *testing.T) {
	members := []member{
		{name: "a", ps: fixtures.PubSubOptions{Faults: fixtures.PubSubFaults{Lag: 3}}},
		{name: "b", ps: fixtures.PubSubOptions{Faults: fixtures.PubSubFaults{UpgradeStatus: 503}}},
	}
	e := newEnv(t, members, redundancy(1))
	sub, err := e.eng.SlotSubscribe(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	e.steps(3)
	e.ps["b"].SetFaults(fixtures.PubSubFaults{})
	e.steps(12) // b's backoff ends, it joins, a catches up to b's start
	got := drain(t, sub)
	checkSlotRun(t, got, 12)
	if last := got[len(got)-1]; last.Endpoint != "b" {
		t.Errorf("the last slot, %d, came from %s first: want b, the fresh endpoint", last.Slot, last.Endpoint)
	}
}

// TestSlotJoinFillerDies: a fresh connection's slots are held for a
// lagging one only while it lives: killed, b's held slots go out at once
// (the slots only a had are lost with it, and the stream goes on from b).
func TestSlotJoinFillerDies(t *testing.T) {
	members := []member{
		{name: "a", ps: fixtures.PubSubOptions{Faults: fixtures.PubSubFaults{Lag: 6}}},
		{name: "b", ps: fixtures.PubSubOptions{Faults: fixtures.PubSubFaults{UpgradeStatus: 503}}},
	}
	e := newEnv(t, members, redundancy(1))
	sub, err := e.eng.SlotSubscribe(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	e.steps(2)
	e.ps["b"].SetFaults(fixtures.PubSubFaults{})
	var joined time.Time // b's connection is open
	for range 20 {
		e.steps(1)
		if e.eng.Snapshot().Endpoints[1].Conns > 0 {
			joined = e.clock.Now()
			break
		}
	}
	if joined.IsZero() {
		t.Fatal("b never joined")
	}
	e.steps(2)
	before := drain(t, sub)
	if len(before) == 0 || before[len(before)-1].Endpoint != "a" {
		t.Fatalf("b joined 2 slots ago: want its slots held while a fills the slots before them, got %d deliveries, the last from %v",
			len(before), lastFrom(before))
	}
	e.ps["a"].SetDown(true)
	e.settle()
	got := drain(t, sub)
	if len(got) == 0 || got[len(got)-1].Endpoint != "b" {
		t.Fatalf("a killed: %d slots delivered at once, want b's held ones", len(got))
	}
}

// lastFrom names the endpoint of the last delivery.
func lastFrom(got []pubsub.Notification[*ws.SlotResult]) string {
	if len(got) == 0 {
		return "none"
	}
	return got[len(got)-1].Endpoint
}

// TestSlotStartHoldBound: the start-up hold costs nothing when every
// endpoint notifies in the same slot, and at most 1.5 slot times after
// the first notification when one is still handshaking (b here, for
// far longer): then the stream starts from a's first slot.
func TestSlotStartHoldBound(t *testing.T) {
	t.Run("all up", func(t *testing.T) {
		e := newEnv(t, twoMembers(), redundancy(2))
		sub, err := e.eng.SlotSubscribe(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		e.step(slot)
		got := drain(t, sub)
		if len(got) != 1 || got[0].Slot != start+1 || !got[0].At.Equal(epoch.Add(slot)) {
			t.Fatalf("one slot later: %v, want slot %d delivered at once", brief(got), start+1)
		}
	})
	t.Run("one handshaking", func(t *testing.T) {
		slow := fixtures.PubSubOptions{Faults: fixtures.PubSubFaults{HandshakeDelay: 5 * time.Second}}
		e := newEnv(t, []member{{name: "a"}, {name: "b", ps: slow}}, redundancy(2))
		sub, err := e.eng.SlotSubscribe(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		e.step(slot)
		e.step(slot)
		if got := drain(t, sub); len(got) != 0 {
			t.Fatalf("half a slot before the hold's end: %v delivered, want none", brief(got))
		}
		e.step(slot / 2)
		got := drain(t, sub)
		end := epoch.Add(slot + slot*3/2)
		if len(got) != 2 || got[0].Slot != start+1 || got[1].Slot != start+2 || !got[1].At.Equal(end) {
			t.Fatalf("at the hold's end: %v, want slots %d and %d at %v", brief(got), start+1, start+2, end.Sub(epoch))
		}
	})
}

// brief shows deliveries as slot@time-since-epoch.
func brief(got []pubsub.Notification[*ws.SlotResult]) []string {
	var out []string
	for _, n := range got {
		out = append(out, fmt.Sprintf("%d@%v", n.Slot, n.At.Sub(epoch)))
	}
	return out
}
