package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/slots"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// Issue 20, N2: endpoints a few slots apart cost the client's reads
// almost nothing. A read whose floor (a slot the client returned) an
// endpoint in step has not reached yet goes where the slot is, and a
// refusal that happens anyway is the client's own bound: retried at once
// where the slot is, or when the chain has had time to get there,
// counted neither against MaxRetries nor the retry budget, and no fault
// of the endpoint's.

// noBudget is a retry budget that grants no counted retry at all.
func noBudget(r *retrypolicy.Settings) {
	r.BudgetBurst, r.BudgetRatio, r.BudgetMinRetries = 0, 0, 0
}

// nextAttempt is the next attempt rec records, failing the test when
// none comes in 10 s of real time.
func nextAttempt(t *testing.T, rec *recorder) transport.Attempt {
	t.Helper()
	select {
	case a := <-rec.ch:
		return a
	case <-guardCtx(t).Done():
		t.Fatal("no attempt ended")
		return transport.Attempt{}
	}
}

// refusals counts name's requests refused with -32016.
func refusals(e *env, name string) int {
	n := 0
	for _, r := range e.server(name).Requests() {
		if r.Refused == -32016 {
			n++
		}
	}
	return n
}

// TestDriftCostsNoRetryBudget: b is two slots behind a and c on a stalled
// chain, and the client's reads are held to the slot a and c answered.
// With no retry budget at all, every read is served: b is tried only
// when its last reading (a refusal) has aged, about once a second, and
// each refusal there is retried at once, uncounted, on a or c; b stays
// healthy. (Before: a third of the reads went to b and failed, "retry
// budget spent".)
func TestDriftCostsNoRetryBudget(t *testing.T) {
	rec := newRecorder()
	e := newEnv(t, []fixtures.Member{slotted("a", 0), slotted("b", 2), slotted("c", 0)},
		conf{OnAttempt: rec.on, Retry: noBudget}, nil)
	ctx := context.Background()
	const reads, step = 100, 100 * time.Millisecond // 10 s of stall
	for i := range reads {
		if _, err := balanceAt(ctx, e.client, rpc.CommitmentConfirmed); err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
		for _, a := range rec.drain() {
			if a.Failed() && (a.Decision.Rule != retrypolicy.RuleNotYet || a.Fault != retrypolicy.LocalFault || a.NotYet != 2) {
				t.Fatalf("read %d: attempt on %s %v (fault %v, %d slots short), decided %v: want an uncounted not-yet retry",
					i, a.Endpoint, a.Cause, a.Fault, a.NotYet, a.Decision.Rule)
			}
		}
		e.clock.Advance(step)
	}
	if n := refusals(e, "b"); n == 0 || n > 15 {
		t.Fatalf("b refused %d reads in 10 s, want about one a second (its reading ages past the floor)", n)
	}
	if s := snapshotByName(t, e.pool, "b"); s.State != endpoint.Available || s.Failures != 0 || s.Ejections != 0 {
		t.Fatalf("b after its refusals: %v, %d failures, %d ejections; want it healthy", s.State, s.Failures, s.Ejections)
	}
	t.Logf("b refused %d of %d reads", refusals(e, "b"), reads)
}

// TestBehindTheAgreedSlotIsNoNotYet: a refusal a few slots short of a
// fresh caller's floor (the agreed slot less the allowed lag) from an
// endpoint further behind than that is a lagging endpoint's failure,
// counted, as before.
func TestBehindTheAgreedSlotIsNoNotYet(t *testing.T) {
	rec := newRecorder()
	e := newEnv(t, []fixtures.Member{slotted("a", 0), slotted("b", 0), slotted("c", 20)}, conf{OnAttempt: rec.on}, nil)
	for _, n := range []string{"a", "b"} { // two endpoints agree
		if _, err := balanceAt(engine.WithEndpoint(context.Background(), n), e.client, rpc.CommitmentConfirmed); err != nil {
			t.Fatal(err)
		}
	}
	rec.drain()
	for i := 0; refusals(e, "c") == 0; i++ {
		if i == 10 {
			t.Fatal("10 reads and none tried c")
		}
		ctx := engine.WithSession(context.Background(), new(slots.Session)) // no mark: floor = agreed - 16
		if _, err := balanceAt(ctx, e.client, rpc.CommitmentConfirmed); err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
	}
	for _, a := range rec.drain() {
		if a.Endpoint == "c" && (a.NotYet != 0 || a.Fault != retrypolicy.EndpointFault || a.Decision.Rule != retrypolicy.RuleRetry) {
			t.Fatalf("c, 20 behind, refused: %d short, fault %v, decided %v; want a counted failure", a.NotYet, a.Fault, a.Decision.Rule)
		}
	}
}

// TestNotYetWaitsForTheChain: the caller asks for a slot two past every
// endpoint's. Each refuses; with no endpoint left at the slot, the retry
// waits two slot times on the pool's clock, uncounted, and the chain
// (on the same clock) is there by then.
func TestNotYetWaitsForTheChain(t *testing.T) {
	rec := newRecorder()
	a, b := slotted("a", 0), slotted("b", 0)
	e := newEnvOneClock(t, []fixtures.Member{a, b}, conf{OnAttempt: rec.on, Retry: noBudget})
	want := e.server("a").Slot("confirmed") + 2
	ch := async(func() error {
		var out *rpc.GetBalanceResult
		return e.client.CallForInto(context.Background(), &out, "getBalance",
			[]any{somePubkey, rpc.M{"commitment": "confirmed", "minContextSlot": want}})
	})
	first, second := nextAttempt(t, rec), nextAttempt(t, rec)
	if first.Decision.Rule != retrypolicy.RuleNotYet || first.Decision.Delay != 0 {
		t.Fatalf("first refusal decided %+v, want a not-yet retry at once on the other endpoint", first.Decision)
	}
	if second.Endpoint == first.Endpoint || second.Decision.Rule != retrypolicy.RuleNotYet || second.Decision.Delay != 800*time.Millisecond {
		t.Fatalf("second refusal (%s) decided %+v, want a not-yet retry after two slots (800ms)", second.Endpoint, second.Decision)
	}
	if err := e.clock.BlockUntilContext(guardCtx(t), 1); err != nil { // the wait
		t.Fatal(err)
	}
	e.clock.Advance(799 * time.Millisecond)
	select {
	case a := <-rec.ch:
		t.Fatalf("an attempt before the chain could be there: %+v", a)
	default:
	}
	e.clock.Advance(time.Millisecond)
	if third := nextAttempt(t, rec); third.Failed() {
		t.Fatalf("third attempt, two slots later: %v", third.Cause)
	}
	if err := wait(t, ch); err != nil {
		t.Fatalf("read: %v", err)
	}
}

// TestSlotAnswerRaisesNoFloorOfTheBanks (issue 20, N1): on a stalled
// chain, ahead's getSlot answers 3 slots past its banks and every other
// endpoint's. Once the client has returned it, data reads are still held
// only to the slots banks served (served, never asking a minContextSlot
// past the tip), and getSlot never goes back: its answers stay at or
// past ahead's, served where that slot is claimed. (Before: every read
// asked for the slot no bank had, and failed.)
func TestSlotAnswerRaisesNoFloorOfTheBanks(t *testing.T) {
	ahead := slotted("ahead", 0)
	ahead.Options.Lies = &fixtures.Lies{SlotAhead: 3}
	e := newEnv(t, []fixtures.Member{slotted("a", 0), slotted("b", 0), ahead}, conf{}, nil)
	tip := e.server("a").Slot("confirmed")
	var fromAhead bool
	ctx := engine.WithObserver(context.Background(), engine.AttemptFunc(func(_ context.Context, _ string, a transport.Attempt) {
		fromAhead = fromAhead || a.Endpoint == "ahead" && !a.Failed()
	}))
	var got uint64
	for i := 0; !fromAhead; i++ {
		if i == 30 {
			t.Fatal("30 getSlot calls and none served by the endpoint ahead")
		}
		if err := e.client.CallForInto(ctx, &got, "getSlot", []any{rpc.M{"commitment": "confirmed"}}); err != nil {
			t.Fatalf("getSlot %d: %v", i, err)
		}
	}
	if got != tip+3 {
		t.Fatalf("getSlot from ahead answered %d, want the tip %d + 3", got, tip)
	}
	for i := range 10 {
		if _, err := balanceAt(context.Background(), e.client, rpc.CommitmentConfirmed); err != nil {
			t.Fatalf("read %d after getSlot answered %d: %v", i, got, err)
		}
		var again uint64
		if err := e.client.CallForInto(context.Background(), &again, "getSlot", []any{rpc.M{"commitment": "confirmed"}}); err != nil || again < got {
			t.Fatalf("getSlot %d after %d: %d, %v; want it never to go back", i, got, again, err)
		}
		e.clock.Advance(100 * time.Millisecond)
	}
	for _, name := range []string{"a", "b", "ahead"} {
		for _, r := range e.server(name).Requests() {
			at := map[string]int{"getBalance": 1, "getSlot": 0}[r.Method]
			if m := minContextSlotOf(t, r, at); m > tip {
				t.Fatalf("%s was asked for %s at minContextSlot %d, past every bank's %d", name, r.Method, m, tip)
			}
		}
	}
}

// TestContradictoryRefusalTeachesNothing: a -32016 whose contextSlot is
// at or past the slot the read asked for (agave refuses only below it,
// naming its bank) says nothing of where the endpoint is: its slot is not
// taken for the endpoint's mark. (Before: a scripted refusal naming slot
// 345678901 at finalized, 32 past every finalized bank, became the
// endpoint's mark, and two such endpoints made the floor of every read.)
func TestContradictoryRefusalTeachesNothing(t *testing.T) {
	liar := slotted("liar", 0)
	liar.Options.Script = fixtures.Always(fixtures.Fault{Kind: fixtures.RPCError, RPCCode: -32016})
	honest := slotted("honest", 0)
	honest.Tier = 1
	e := newEnv(t, []fixtures.Member{liar, honest}, conf{}, nil)
	for i := range 3 { // finalized: the liar's "contextSlot" is past its bank
		if _, err := balanceAt(context.Background(), e.client, ""); err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
	}
	if len(e.server("liar").Requests()) < 3 {
		t.Fatal("the liar refused nothing: the test proves nothing")
	}
	if s := snapshotByName(t, e.pool, "liar"); s.Slot != 0 {
		t.Fatalf("the liar's mark is %d (%s), from refusals that contradict themselves", s.Slot, s.SlotCommitment)
	}
}

// TestCallersOwnFloorRefusalTeachesTheSlot: with monotonic reads off, a
// caller's own minContextSlot is still the slot a -32016 is checked
// against, so b's refusal, below it, marks b.
func TestCallersOwnFloorRefusalTeachesTheSlot(t *testing.T) {
	e := newEnv(t, []fixtures.Member{slotted("a", 0), slotted("b", 100)}, conf{NoMonotonic: true}, nil)
	cfg := rpc.M{"commitment": "confirmed", "minContextSlot": e.server("a").Slot("confirmed")}
	for range 4 {
		var out *rpc.GetBalanceResult
		if err := e.client.CallForInto(context.Background(), &out, "getBalance", []any{somePubkey, cfg}); err != nil {
			t.Fatal(err)
		}
	}
	if refusals(e, "b") == 0 {
		t.Fatal("b refused nothing: the test proves nothing")
	}
	if s := snapshotByName(t, e.pool, "b"); s.Slot != e.server("b").Slot("confirmed") {
		t.Fatalf("b's mark %d, want %d (from its -32016)", s.Slot, e.server("b").Slot("confirmed"))
	}
}

// TestSlotAnswerAheadOfItsBankServesGetSlot (the Mainnet soak's seeds 15
// and 18): on a stalled chain, ahead's banks are two slots behind a's and
// b's, and its getSlot answers three past its banks: one past every
// other endpoint's. Once the session has returned ahead's getSlot and a
// context slot of a's bank, a getSlot must be at or past ahead's answer,
// which only ahead gives, and ahead's answer meets both marks. So the
// request must not ask ahead's banks for a slot they do not have: a
// minContextSlot at the session's context mark, past ahead's banks, made
// every getSlot of the session fail for the whole stall (a and b answer
// below the result mark, ahead refuses with -32016).
func TestSlotAnswerAheadOfItsBankServesGetSlot(t *testing.T) {
	rec := newRecorder()
	ahead := slotted("ahead", 2)
	ahead.Options.Lies = &fixtures.Lies{SlotAhead: 3}
	e := newEnv(t, []fixtures.Member{slotted("a", 0), slotted("b", 0), ahead}, conf{OnAttempt: rec.on}, nil)
	tip := e.server("a").Slot("processed")
	cfg := rpc.M{"commitment": "processed"}
	ctx := engine.WithSession(context.Background(), new(slots.Session))
	getSlot := func() (uint64, error) {
		var got uint64
		err := e.client.CallForInto(ctx, &got, "getSlot", []any{cfg})
		return got, err
	}
	for i := 0; ; i++ { // the session returns ahead's lead
		if i == 30 {
			t.Fatal("30 getSlot calls and none answered by ahead")
		}
		got, err := getSlot()
		if err != nil {
			t.Fatalf("getSlot %d: %v", i, err)
		}
		if got == tip+1 {
			break
		}
	}
	for i := 0; ; i++ { // and a context slot of a's or b's bank
		if i == 30 {
			t.Fatal("30 reads and none answered by a or b")
		}
		out, err := balanceAt(ctx, e.client, rpc.CommitmentProcessed)
		if err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
		if out.Context.Slot == tip {
			break
		}
	}
	rec.drain()
	ch := async(func() error {
		got, err := getSlot()
		if err == nil && got < tip+1 {
			return fmt.Errorf("getSlot answered %d after the session returned %d", got, tip+1)
		}
		return err
	})
	// Drive the pool's clock through any not-yet wait (the servers' clock
	// never moves: the chain stays stalled).
	for done := false; !done; {
		select {
		case a := <-rec.ch:
			if a.Failed() && a.Decision.Retry && a.Decision.Delay > 0 {
				if err := e.clock.BlockUntilContext(guardCtx(t), 1); err != nil {
					t.Fatal(err)
				}
				e.clock.Advance(a.Decision.Delay)
			}
			done = !a.Failed() || !a.Decision.Retry
		case <-guardCtx(t).Done():
			t.Fatal("no attempt ended")
		}
	}
	if err := wait(t, ch); err != nil {
		t.Fatalf("getSlot after the session returned ahead's %d and a's bank %d: %+v", tip+1, tip, err)
	}
	for _, r := range e.server("ahead").Requests() {
		if r.Method == "getSlot" && r.Refused == -32016 {
			t.Fatalf("ahead was asked for a slot its banks (%d) have not reached: %s", tip-2, r.Params)
		}
	}
}

// TestNotYetRefuserIsNotAvoided (soak seed 11, at a stall's end): b and c
// are known five slots short, a is one short and refuses; the read waits
// a slot for the chain. Then a, whose refusal has aged a slot, is the
// endpoint the slot is likely at, and serves. (Before: the refuser was
// avoided, so the retry went to b, four short, whose wait of 1.6 s
// passed the call's deadline of 1 s: the read failed with a there.)
func TestNotYetRefuserIsNotAvoided(t *testing.T) {
	rec := newRecorder()
	members := []fixtures.Member{slotted("a", 1), slotted("b", 5), slotted("c", 5)}
	e := newEnvClocks(t, members, conf{OnAttempt: rec.on, Retry: noBudget}, pool.DefaultSettings(), func(specs []endpoint.Spec) {
		for i := range specs {
			specs[i].Roles[endpoint.RoleRead] = endpoint.Limits{RequestTimeout: time.Second}
		}
	}, true)
	for _, n := range []string{"b", "c"} { // the book knows b and c
		if _, err := balanceAt(engine.WithEndpoint(context.Background(), n), e.client, rpc.CommitmentConfirmed); err != nil {
			t.Fatal(err)
		}
	}
	rec.drain()
	want := e.server("a").Slot("confirmed") + 1
	ch := async(func() error {
		var out *rpc.GetBalanceResult
		return e.client.CallForInto(context.Background(), &out, "getBalance",
			[]any{somePubkey, rpc.M{"commitment": "confirmed", "minContextSlot": want}})
	})
	first := nextAttempt(t, rec)
	if first.Endpoint != "a" || first.Decision.Rule != retrypolicy.RuleNotYet || first.Decision.Delay != 400*time.Millisecond {
		t.Fatalf("first attempt on %s decided %+v, want a's refusal and a slot's wait", first.Endpoint, first.Decision)
	}
	if err := e.clock.BlockUntilContext(guardCtx(t), 1); err != nil { // the wait
		t.Fatal(err)
	}
	e.clock.Advance(400 * time.Millisecond)
	if second := nextAttempt(t, rec); second.Endpoint != "a" || second.Failed() {
		t.Fatalf("after the wait: %s, %v (%s); want a, served", second.Endpoint, second.Cause, second.Decision.Reason)
	}
	if err := wait(t, ch); err != nil {
		t.Fatalf("read: %+v", err)
	}
}
