package engine_test

import (
	"context"
	"testing"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
)

// History routing on the fake cluster (issue 25; plans/018-history-section.md):
// counted at the servers.

// getTx makes a getTransaction call through e's client and returns its
// error.
func (e *env) getTx(t *testing.T) error {
	t.Helper()
	var out any
	return e.client.CallForInto(context.Background(), &out, "getTransaction",
		[]any{"5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW", map[string]any{"encoding": "json"}})
}

// calls is how many requests of method server name has read.
func (e *env) calls(name, method string) int { return e.server(name).Stats().Calls[method] }

func TestLackingHistoryIsNotAskedAgainForAWhile(t *testing.T) {
	a, b := member("a", 0), member("b", 1)
	a.Options.Script = fixtures.ByMethod(map[string]fixtures.Fault{"getTransaction": fixtures.RPC(-32011)})
	e := newEnvOneClock(t, []fixtures.Member{a, b}, conf{})
	for i := range 20 {
		if err := e.getTx(t); err != nil {
			t.Fatalf("getTransaction %d: %v", i, err)
		}
		if _, err := getBalance(context.Background(), e.client); err != nil {
			t.Fatalf("getBalance %d: %v", i, err)
		}
	}
	// The first call asked a (tier 0), which refused, and failed over.
	if n := e.calls("a", "getTransaction"); n != 1 {
		t.Fatalf("a asked getTransaction %d times in 20 calls, want once", n)
	}
	if n := e.calls("b", "getTransaction"); n != 20 {
		t.Fatalf("b asked getTransaction %d times, want 20", n)
	}
	if n := e.calls("a", "getBalance"); n != 20 {
		t.Fatalf("a asked getBalance %d times, want all 20: it is avoided for getTransaction only", n)
	}
	e.clock.Advance(pool.DefaultSettings().HistoryAvoid)
	if err := e.getTx(t); err != nil {
		t.Fatal(err)
	}
	if n := e.calls("a", "getTransaction"); n != 2 {
		t.Fatalf("after history_avoid, a asked %d times in all, want once more", n)
	}
}

func TestHistoryReadGoesWhereHistoryIs(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("fast", 0), member("archive", 1)}, conf{}, func(s []endpoint.Spec) {
		for i := range s {
			s[i].History = s[i].Name == "archive"
		}
	})
	for i := range 10 {
		if err := e.getTx(t); err != nil {
			t.Fatalf("getTransaction %d: %v", i, err)
		}
		if _, err := getBalance(context.Background(), e.client); err != nil {
			t.Fatal(err)
		}
	}
	if a, f := e.calls("archive", "getTransaction"), e.calls("fast", "getTransaction"); a != 10 || f != 0 {
		t.Fatalf("getTransaction: archive %d, fast %d; want all 10 on archive (history = true, tier 1)", a, f)
	}
	if n := e.calls("fast", "getBalance"); n != 10 {
		t.Fatalf("getBalance: fast %d of 10, want all: tiers decide plain reads", n)
	}
}

func TestEveryEndpointLackingHistoryStillAsked(t *testing.T) {
	a, b := member("a", 0), member("b", 0)
	for _, m := range []*fixtures.Member{&a, &b} {
		m.Options.Script = fixtures.ByMethod(map[string]fixtures.Fault{"getTransaction": fixtures.RPC(-32011)})
	}
	e := newEnvOneClock(t, []fixtures.Member{a, b}, conf{})
	for i := range 3 {
		before := e.calls("a", "getTransaction") + e.calls("b", "getTransaction")
		err := e.getTx(t)
		if ce := callErr(t, err); ce.Cause != retrypolicy.RPCEndpoint {
			t.Fatalf("call %d: %v, want the endpoints' -32011", i, err)
		}
		if after := e.calls("a", "getTransaction") + e.calls("b", "getTransaction"); after == before {
			t.Fatalf("call %d reached no endpoint: every one avoided must not fail a call unasked", i)
		}
	}
}

func TestSkippedSlotIsTheCallersAnswer(t *testing.T) {
	a, b := member("a", 0), member("b", 0)
	for _, m := range []*fixtures.Member{&a, &b} {
		m.Options.Script = fixtures.ByMethod(map[string]fixtures.Fault{"getBlock": fixtures.RPC(-32007)})
	}
	e := newEnvOneClock(t, []fixtures.Member{a, b}, conf{})
	for i := range 4 {
		var out any
		err := e.client.CallForInto(context.Background(), &out, "getBlock", []any{uint64(1000 + i)})
		if ce := callErr(t, err); ce.Cause != retrypolicy.RPCApplication || len(ce.Attempts) != 1 {
			t.Fatalf("getBlock %d: %v (%d attempts), want the skipped slot at once", i, err, len(ce.Attempts))
		}
	}
	if n := e.calls("a", "getBlock") + e.calls("b", "getBlock"); n != 4 {
		t.Fatalf("%d requests for 4 skipped slots, want one each", n)
	}
	for _, name := range []string{"a", "b"} {
		if s := readSnapshot(t, e, name); s.Avoided != nil {
			t.Fatalf("%s avoided after a skipped slot: %+v", name, s.Avoided)
		}
	}
}
