package engine_test

import (
	"context"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/slots"
)

// TestGetSlotRefuserIsAvoidedAtOnce: a's getSlot answers 3 slots
// past its banks (TestSlotAnswerAheadOfItsBankServesGetSlot's node). A
// caller's getSlot with its own minContextSlot one past a's bank is
// refused there (-32016, one slot short: a not-yet). b has the slot.
// For getSlot the book judges a by its mark (its getSlot answers), which
// the refusal does not lower, so a is not "short": the at-once not-yet
// retry must still not go back to a. (Review of stop 36: with the refuser
// no longer avoided, 9 attempts went to a, and the call failed.)
func TestGetSlotRefuserIsAvoidedAtOnce(t *testing.T) {
	rec := newRecorder()
	a := slotted("a", 2)
	a.Options.Lies = &fixtures.Lies{SlotAhead: 3}
	b := slotted("b", 0)
	b.Tier = 1
	e := newEnv(t, []fixtures.Member{a, b}, conf{OnAttempt: rec.on, Retry: noBudget}, nil)
	tip := e.server("b").Slot("processed")
	for _, n := range []string{"a", "b"} { // the book knows a's and b's getSlot
		var got uint64
		if err := e.client.CallForInto(engine.WithEndpoint(context.Background(), n), &got, "getSlot",
			[]any{rpc.M{"commitment": "processed"}}); err != nil {
			t.Fatal(err)
		}
	}
	rec.drain()
	ctx := engine.WithSession(context.Background(), new(slots.Session))
	var got uint64
	err := e.client.CallForInto(ctx, &got, "getSlot", []any{rpc.M{"commitment": "processed", "minContextSlot": tip - 1}})
	onA := 0
	for _, at := range rec.drain() {
		if at.Endpoint == "a" {
			onA++
		}
		t.Logf("%s failed=%v notYet=%d decided %v %q", at.Endpoint, at.Failed(), at.NotYet, at.Decision.Rule, at.Decision.Reason)
	}
	if err != nil || onA > 1 {
		t.Fatalf("getSlot at minContextSlot %d: %d attempts on a (the refuser), err %v; want a once, then b", tip-1, onA, err)
	}
}
