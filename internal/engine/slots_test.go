package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/slots"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// slotted is a member with the slot model on, lag slots behind the tip.
func slotted(name string, lag uint64) fixtures.Member {
	m := member(name, 0)
	m.Options.Slots = &fixtures.SlotOptions{Lag: lag}
	return m
}

// balanceAt is getBalance at commitment c through the client, with ctx.
func balanceAt(ctx context.Context, c *engine.Engine, commitment rpc.CommitmentType) (*rpc.GetBalanceResult, error) {
	var out *rpc.GetBalanceResult
	params := []any{somePubkey}
	if commitment != "" {
		params = append(params, rpc.M{"commitment": commitment})
	}
	err := c.CallForInto(ctx, &out, "getBalance", params)
	return out, err
}

// minContextSlotOf is the minContextSlot a recorded request asked for (0:
// none) in its config at index i.
func minContextSlotOf(t *testing.T, r fixtures.Received, i int) uint64 {
	t.Helper()
	var params []json.RawMessage
	if err := json.Unmarshal(r.Params, &params); err != nil {
		t.Fatal(err)
	}
	if i >= len(params) {
		return 0
	}
	var cfg struct{ MinContextSlot uint64 }
	if err := json.Unmarshal(params[i], &cfg); err != nil {
		t.Fatal(err)
	}
	return cfg.MinContextSlot
}

// served counts name's answered (not refused) requests of method.
func served(e *env, name, method string) int {
	n := 0
	for _, r := range e.server(name).Requests() {
		if r.Method == method && r.Refused == 0 && r.Fault.Kind == fixtures.None {
			n++
		}
	}
	return n
}

func TestReadsNeverGoBackInTimeWithALaggingPeer(t *testing.T) {
	for _, c := range []rpc.CommitmentType{"", rpc.CommitmentConfirmed, rpc.CommitmentProcessed} {
		t.Run("commitment="+string(c), func(t *testing.T) {
			e := newEnv(t, []fixtures.Member{slotted("a", 0), slotted("b", 1), slotted("lagging", 100)}, conf{}, nil)
			ctx := context.Background()
			var high uint64
			for i := range 30 {
				out, err := balanceAt(ctx, e.client, c)
				if err != nil {
					t.Fatalf("read %d: %v", i, err)
				}
				if out.Context.Slot < high {
					t.Fatalf("read %d went back in time: slot %d after %d", i, out.Context.Slot, high)
				}
				high = out.Context.Slot
			}
			// The lagging endpoint served at most the one read that came
			// before any mark (nothing to compare it with yet).
			if n := served(e, "lagging", "getBalance"); n > 1 {
				t.Fatalf("the lagging endpoint served %d reads", n)
			}
			s := snapshotByName(t, e.pool, "lagging")
			if s.SlotStanding != endpoint.Lagging || s.SlotLag < 99 || s.SlotLag > 100 {
				t.Fatalf("lagging endpoint's snapshot: lag %d %v", s.SlotLag, s.SlotStanding)
			}
		})
	}
}

func TestMinContextSlotIsAddedAndTheCallersParamsAreUntouched(t *testing.T) {
	e := newEnv(t, []fixtures.Member{slotted("a", 0)}, conf{}, nil)
	ctx := context.Background()
	first, err := balanceAt(ctx, e.client, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	cfg := rpc.M{"commitment": rpc.CommitmentConfirmed}
	var out *rpc.GetBalanceResult
	if err := e.client.CallForInto(ctx, &out, "getBalance", []any{somePubkey, cfg}); err != nil {
		t.Fatal(err)
	}
	if _, set := cfg["minContextSlot"]; set || len(cfg) != 1 {
		t.Fatalf("the caller's config was modified: %v", cfg)
	}
	reqs := e.server("a").Requests()
	if got := minContextSlotOf(t, reqs[0], 1); got != 0 {
		t.Fatalf("first read asked for minContextSlot %d, want none", got)
	}
	if got := minContextSlotOf(t, reqs[1], 1); got != first.Context.Slot {
		t.Fatalf("second read asked for minContextSlot %d, want %d", got, first.Context.Slot)
	}
	// A read with no config gets one; a caller's own minContextSlot is
	// kept as written.
	if _, err := balanceAt(ctx, e.client, ""); err != nil {
		t.Fatal(err)
	}
	own := map[string]any{"commitment": "confirmed", "minContextSlot": 5}
	if err := e.client.CallForInto(ctx, &out, "getBalance", []any{somePubkey, own}); err != nil {
		t.Fatal(err)
	}
	reqs = e.server("a").Requests()
	if got := minContextSlotOf(t, reqs[3], 1); got != 5 {
		t.Fatalf("the caller's minContextSlot became %d", got)
	}
	// A finalized read carries the finalized mark, not the confirmed one.
	if got, want := minContextSlotOf(t, reqs[2], 1), uint64(0); got != want {
		t.Fatalf("first finalized read asked for %d, want %d", got, want)
	}
}

func TestMonotonicReadsOff(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    conf
		ctx  func(context.Context) context.Context
	}{
		{"settings", conf{NoMonotonic: true}, func(ctx context.Context) context.Context { return ctx }},
		{"per call", conf{}, func(ctx context.Context) context.Context { return engine.WithMonotonicReads(ctx, false) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, []fixtures.Member{slotted("a", 0)}, tc.c, nil)
			ctx := tc.ctx(context.Background())
			for range 2 {
				if _, err := balanceAt(ctx, e.client, rpc.CommitmentConfirmed); err != nil {
					t.Fatal(err)
				}
			}
			for _, r := range e.server("a").Requests() {
				if got := minContextSlotOf(t, r, 1); got != 0 {
					t.Fatalf("minContextSlot %d with monotonic reads off", got)
				}
			}
		})
	}
}

func TestSessionsAreIndependent(t *testing.T) {
	// Monotonic reads off for the client: a session still turns them on
	// for its own calls, with its own mark.
	e := newEnv(t, []fixtures.Member{slotted("a", 0)}, conf{NoMonotonic: true}, nil)
	s1, s2 := new(slots.Session), new(slots.Session)
	out, err := balanceAt(engine.WithSession(context.Background(), s1), e.client, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	if got := s1.Slot(slots.Confirmed); got != out.Context.Slot {
		t.Fatalf("session mark %d, want %d", got, out.Context.Slot)
	}
	if _, err := balanceAt(engine.WithSession(context.Background(), s2), e.client, rpc.CommitmentConfirmed); err != nil {
		t.Fatal(err)
	}
	reqs := e.server("a").Requests()
	if got := minContextSlotOf(t, reqs[1], 1); got != 0 {
		t.Fatalf("a new session's first read asked for %d, want none", got)
	}
	if s2.Slot(slots.Finalized) != 0 || s1.Slot(slots.Processed) != 0 {
		t.Fatal("a commitment that was not read has a mark")
	}
}

// tokenSupply is a getTokenSupply answer: a context and no
// minContextSlot in its config.
var tokenSupply = json.RawMessage(`{"context":{"apiVersion":"2.1.0","slot":1},"value":{"amount":"1000","decimals":6,"uiAmount":0.001,"uiAmountString":"0.001"}}`)

func withTokenSupply(m fixtures.Member) fixtures.Member {
	m.Options.Results = map[string]json.RawMessage{"getTokenSupply": tokenSupply}
	return m
}

func TestStaleAnswerIsRetriedElsewhere(t *testing.T) {
	// Two endpoints 100 slots apart: no reference (neither corroborates the
	// other), so the balancing alternates; getTokenSupply takes no
	// minContextSlot, so b answers, below the mark, and its answer is
	// refused before it reaches out.
	rec := newRecorder()
	e := newEnv(t, []fixtures.Member{withTokenSupply(slotted("a", 0)), withTokenSupply(slotted("b", 100))},
		conf{OnAttempt: rec.on}, nil)
	ctx := context.Background()
	params := []any{somePubkey, rpc.M{"commitment": "confirmed"}}
	var high uint64
	for i := range 6 {
		var out *rpc.GetTokenSupplyResult
		if err := e.client.CallForInto(ctx, &out, "getTokenSupply", params); err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
		if out.Context.Slot < high {
			t.Fatalf("read %d went back in time: %d after %d", i, out.Context.Slot, high)
		}
		high = out.Context.Slot
	}
	stale := 0
	for _, a := range rec.drain() {
		if a.Endpoint == "b" && a.Cause == retrypolicy.NodeBehind {
			stale++
		}
	}
	// After its first refused answer b costs more (a failure's latency
	// penalty), so the balancing rarely draws it again: at least one.
	if stale < 1 || served(e, "b", "getTokenSupply") > 1+stale {
		t.Fatalf("%d stale answers from b refused, %d served", stale, served(e, "b", "getTokenSupply"))
	}
}

func TestStaleErrorWhenNothingFresherAnswers(t *testing.T) {
	e := newEnv(t, []fixtures.Member{withTokenSupply(slotted("a", 0)), withTokenSupply(slotted("b", 100))},
		conf{Retry: noRetries}, nil)
	s := new(slots.Session)
	ctx := engine.WithSession(context.Background(), s)
	var out *rpc.GetTokenSupplyResult
	params := []any{somePubkey, rpc.M{"commitment": "confirmed"}}
	// Until both have answered once, the read may land anywhere; then a's
	// slot is the session's mark.
	for s.Slot(slots.Confirmed) != e.server("a").Slot("confirmed") {
		if err := e.client.CallForInto(ctx, &out, "getTokenSupply", params); err != nil {
			t.Fatal(err)
		}
	}
	e.server("a").SetFault(fixtures.Fault{Kind: fixtures.ResetOnAccept})
	out = nil
	err := e.client.CallForInto(ctx, &out, "getTokenSupply", params)
	var se *transport.StaleError
	if !errors.As(err, &se) {
		// The read may have gone to a first (reset), then b: either way it
		// must end on b's stale answer when b is the last endpoint tried.
		t.Fatalf("error %v, want a *StaleError", err)
	}
	if se.Slot != e.server("b").Slot("confirmed") || se.Floor != e.server("a").Slot("confirmed") || se.Commitment != rpc.CommitmentConfirmed {
		t.Fatalf("stale error %+v", se)
	}
	msg := err.Error()
	if !strings.Contains(msg, "b") || !strings.Contains(msg, "stale answer") {
		t.Fatalf("error text %q does not name the endpoint and the staleness", msg)
	}
	if ce := callErr(t, err); ce.Cause != retrypolicy.NodeBehind {
		t.Fatalf("cause %v, want node-behind", ce.Cause)
	}
	if out != nil {
		t.Fatalf("a stale answer reached out: %+v", out)
	}
}

// snapshotByName is the read role's snapshot of name.
func snapshotByName(t *testing.T, p *admission.Pool, name string) endpoint.Snapshot {
	t.Helper()
	for _, s := range p.Snapshot() {
		if s.Name == name && s.Role == endpoint.RoleRead {
			return s
		}
	}
	t.Fatalf("no snapshot of %s", name)
	return endpoint.Snapshot{}
}

func TestOneLiarCannotHoldReadsHostage(t *testing.T) {
	// liar answers every read at slot 10^18. Whatever a caller saw from
	// it, the mark asked of the others is capped by the reference the
	// other two corroborate.
	liar := member("liar", 0)
	liar.Options.Results = map[string]json.RawMessage{
		"getBalance": json.RawMessage(`{"context":{"slot":1000000000000000000},"value":1}`)}
	e := newEnv(t, []fixtures.Member{liar, slotted("b", 0), slotted("c", 1)}, conf{}, nil)
	ctx := context.Background()
	failed := 0
	for i := range 20 {
		out, err := balanceAt(ctx, e.client, rpc.CommitmentConfirmed)
		if err != nil {
			failed++
			if i >= 5 {
				t.Fatalf("read %d failed after the warm-up: %v", i, err)
			}
			continue
		}
		if i >= 5 && out.Context.Slot > e.server("b").Slot("confirmed") {
			t.Fatalf("read %d answered by the liar at %d", i, out.Context.Slot)
		}
	}
	if s := snapshotByName(t, e.pool, "liar"); s.SlotStanding != endpoint.Outlier {
		t.Fatalf("liar: %v, want outlier", s.SlotStanding)
	}
	for _, n := range []string{"b", "c"} {
		if s := snapshotByName(t, e.pool, n); s.SlotStanding != endpoint.InStep {
			t.Fatalf("%s: %v, want in-step", n, s.SlotStanding)
		}
		reqs := e.server(n).Requests()
		for _, r := range reqs[min(2, len(reqs)):] {
			if got := minContextSlotOf(t, r, 1); got > e.server("b").Slot("confirmed") {
				t.Fatalf("%s was asked for minContextSlot %d", n, got)
			}
		}
	}
	t.Logf("%d reads failed in the warm-up", failed)
}

func TestMinContextSlotRefusalTeachesTheSlot(t *testing.T) {
	// b's -32016 carries its bank's slot: the refusal alone tells the pool
	// where b is.
	e := newEnv(t, []fixtures.Member{slotted("a", 0), slotted("b", 100)}, conf{}, nil)
	ctx := context.Background()
	var out *rpc.GetBalanceResult
	cfg := rpc.M{"commitment": "confirmed", "minContextSlot": e.server("a").Slot("confirmed")}
	for range 4 {
		if err := e.client.CallForInto(ctx, &out, "getBalance", []any{somePubkey, cfg}); err != nil {
			t.Fatal(err)
		}
	}
	if served(e, "b", "getBalance") != 0 {
		t.Fatal("b served a read below the caller's minContextSlot")
	}
	if s := snapshotByName(t, e.pool, "b"); s.Slot != e.server("b").Slot("confirmed") {
		t.Fatalf("b's mark %d, want %d (from its -32016)", s.Slot, e.server("b").Slot("confirmed"))
	}
}
