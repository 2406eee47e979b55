package admission_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
)

// History routing (issue 25): a history read (Request.History) tries the
// endpoints that declare history first, in any tier, then the others,
// then those avoided for its method; an answer that says the endpoint
// lacks the history asked for avoids it for the method for
// Settings.HistoryAvoid.

// avoidFor is the default history_avoid.
var avoidFor = pool.DefaultSettings().HistoryAvoid

// historyRead is a read of getTransaction that reads history.
func historyRead(method string) admission.Request {
	return admission.Request{Role: endpoint.RoleRead, Method: method, History: true}
}

// archive is ep that declares history.
func archive(name string, tier int, l endpoint.Limits) endpoint.Spec {
	s := ep(name, tier, l)
	s.History = true
	return s
}

// rpcAnswer is an answer with JSON-RPC error code, of cause c.
func rpcAnswer(code int, c retrypolicy.Cause) retrypolicy.Outcome {
	f := retrypolicy.EndpointFault
	if c == retrypolicy.RPCApplication {
		f = retrypolicy.RequestFault
	}
	return retrypolicy.Outcome{Cause: c, Dispatch: retrypolicy.Answered, HTTPStatus: 200, RPCCode: code, Fault: f}
}

// answerOn admits req on endpoint name (every other one avoided) and
// reports o.
func answerOn(t *testing.T, p *admission.Pool, req admission.Request, name string, o retrypolicy.Outcome) {
	t.Helper()
	for _, s := range p.Snapshot() {
		if s.Name != name && s.Role == endpoint.RoleRead {
			req.Avoid = append(req.Avoid, s.Name)
		}
	}
	now(t, p, req, name).Done(o)
}

func TestHistoryReadGoesToHistoryFirstInAnyTier(t *testing.T) {
	one := endpoint.Limits{MaxConcurrentRequests: 1}
	p, fc := newPool(t, ep("fast", 0, one), archive("deep", 1, one))
	if got := tallyReq(t, p, historyRead("getTransaction"), 20); got["deep"] != 20 {
		t.Fatalf("history reads: %v, want all 20 on deep (tier 1, history) before fast (tier 0)", got)
	}
	if got := tallyReq(t, p, read, 20); got["fast"] != 20 {
		t.Fatalf("plain reads: %v, want all 20 on fast: tiers still decide", got)
	}
	// deep busy: a history read waits one slot for it, then takes fast.
	takesAfterPatience(t, p, fc, historyRead("getBlock"), "deep", "fast")
}

func TestHistoryReadWithoutDeclarationsKeepsTiers(t *testing.T) {
	p, _ := newPool(t, ep("a", 0, endpoint.Limits{}), ep("b", 1, endpoint.Limits{}))
	if got := tallyReq(t, p, historyRead("getTransaction"), 20); got["a"] != 20 {
		t.Fatalf("history reads: %v, want all on tier 0: nobody declares history", got)
	}
}

func TestLackingHistoryAvoidsTheMethodForAWhile(t *testing.T) {
	one := endpoint.Limits{MaxConcurrentRequests: 1}
	p, fc := newPool(t, ep("a", 0, one), ep("b", 0, one))
	answerOn(t, p, historyRead("getTransaction"), "a", rpcAnswer(-32011, retrypolicy.RPCEndpoint))
	// b busy: getTransaction does not take a at once; other methods do.
	held := now(t, p, historyRead("getTransaction"), "b")
	if pm := p.TryAcquire(historyRead("getTransaction")); pm != nil {
		pm.Release()
		t.Fatalf("getTransaction took %s at once, want a avoided", pm.Endpoint())
	}
	now(t, p, historyRead("getBlock"), "a").Done(success())
	now(t, p, read, "a").Done(success())
	s := snapshotOf(t, p, "a")
	if len(s.Avoided) != 1 || s.Avoided["getTransaction"] != avoidFor {
		t.Fatalf("a's snapshot: avoided %v, want getTransaction for %v", s.Avoided, avoidFor)
	}
	// Still used when nothing else can be had: after one slot's patience.
	pd := start(context.Background(), p, historyRead("getTransaction"))
	pd.waitsFor(t, fc, 400*time.Millisecond)
	pd.permit(t, "a").Release()
	fc.Advance(avoidFor - 400*time.Millisecond - time.Millisecond)
	if pm := p.TryAcquire(historyRead("getTransaction")); pm != nil {
		pm.Release()
		t.Fatalf("1ms before the avoidance ends, getTransaction took %s at once", pm.Endpoint())
	}
	fc.Advance(time.Millisecond)
	pm := p.TryAcquire(historyRead("getTransaction"))
	if pm == nil || pm.Endpoint() != "a" {
		t.Fatalf("after the avoidance: %v, want a at once", pm)
	}
	pm.Release()
	held.Done(success())
	if s := snapshotOf(t, p, "a"); s.Avoided != nil {
		t.Fatalf("a's snapshot after the avoidance: %+v", s.Avoided)
	}
}

func TestEveryCodeThatLacksHistoryAvoids(t *testing.T) {
	for _, tc := range []struct {
		code  int
		cause retrypolicy.Cause
		avoid bool
	}{
		{-32001, retrypolicy.RPCEndpoint, true},
		{-32011, retrypolicy.RPCEndpoint, true},
		{-32018, retrypolicy.RPCEndpoint, true},
		{-32019, retrypolicy.RPCEndpoint, true},
		// The chain's answers: every endpoint repeats them.
		{-32007, retrypolicy.RPCApplication, false},
		{-32009, retrypolicy.RPCApplication, false},
		// Other endpoint errors say nothing of history.
		{-32603, retrypolicy.RPCEndpoint, false},
		{-32004, retrypolicy.NodeBehind, false},
	} {
		p, _ := newPool(t, ep("a", 0, endpoint.Limits{}), ep("b", 0, endpoint.Limits{}))
		answerOn(t, p, historyRead("getBlock"), "a", rpcAnswer(tc.code, tc.cause))
		if got := snapshotOf(t, p, "a").Avoided != nil; got != tc.avoid {
			t.Errorf("%d: avoided %v, want %v", tc.code, got, tc.avoid)
		}
	}
}

func TestOnlyHistoryReadsRecordAvoidance(t *testing.T) {
	p, _ := newPool(t, ep("a", 0, endpoint.Limits{}), ep("b", 0, endpoint.Limits{}))
	plain := historyRead("getTransaction")
	plain.History = false
	answerOn(t, p, plain, "a", rpcAnswer(-32011, retrypolicy.RPCEndpoint))
	if s := snapshotOf(t, p, "a"); s.Avoided != nil {
		t.Fatalf("a plain read's -32011 avoided a: %+v", s.Avoided)
	}
	p, _ = newPoolWith(t, func(s *pool.Settings, _ *admission.Options) { s.HistoryAvoid = 0 },
		ep("a", 0, endpoint.Limits{}), ep("b", 0, endpoint.Limits{}))
	answerOn(t, p, historyRead("getTransaction"), "a", rpcAnswer(-32011, retrypolicy.RPCEndpoint))
	if s := snapshotOf(t, p, "a"); s.Avoided != nil {
		t.Fatalf("history_avoid 0, yet a is avoided: %+v", s.Avoided)
	}
}

func TestEveryEndpointAvoidedStillServes(t *testing.T) {
	p, _ := newPool(t, archive("a", 0, endpoint.Limits{}), ep("b", 1, endpoint.Limits{}))
	for _, name := range []string{"a", "b"} {
		answerOn(t, p, historyRead("getTransaction"), name, rpcAnswer(-32011, retrypolicy.RPCEndpoint))
	}
	// No wait, no patience: with every candidate avoided, tiers and the
	// declaration decide as before.
	for i := range 10 {
		pm := p.TryAcquire(historyRead("getTransaction"))
		if pm == nil || pm.Endpoint() != "a" {
			t.Fatalf("read %d, every endpoint avoided: %v, want a (history, tier 0) at once", i, pm)
		}
		pm.Done(success())
	}
}

func TestAvoidedComesAfterEndpointsWithoutHistory(t *testing.T) {
	one := endpoint.Limits{MaxConcurrentRequests: 1}
	p, fc := newPool(t, archive("deep", 0, one), ep("plain", 1, one))
	answerOn(t, p, historyRead("getSignaturesForAddress"), "deep", rpcAnswer(-32019, retrypolicy.RPCEndpoint))
	if got := tallyReq(t, p, historyRead("getSignaturesForAddress"), 20); got["plain"] != 20 {
		t.Fatalf("deep avoided: %v, want all on plain (no history, not avoided)", got)
	}
	// plain busy: the avoided archive after one slot's patience.
	takesAfterPatience(t, p, fc, historyRead("getSignaturesForAddress"), "plain", "deep")
}

// takesAfterPatience holds busy (req's first choice) with one req, then
// checks that the next req waits one slot's patience (400 ms) for it and
// takes other.
func takesAfterPatience(t *testing.T, p *admission.Pool, fc *clockwork.FakeClock, req admission.Request, busy, other string) {
	t.Helper()
	held := now(t, p, req, busy)
	pd := start(context.Background(), p, req)
	pd.waitsFor(t, fc, 400*time.Millisecond)
	pd.permit(t, other).Done(success())
	held.Done(success())
}

func TestDeadlineErrorNamesHistoryRanks(t *testing.T) {
	one := endpoint.Limits{MaxConcurrentRequests: 1}
	p, fc := newPool(t, archive("deep", 0, one), ep("plain", 0, one), ep("gone", 0, one))
	answerOn(t, p, historyRead("getBlock"), "gone", rpcAnswer(-32001, retrypolicy.RPCEndpoint))
	var held []*admission.Permit
	for _, name := range []string{"deep", "plain", "gone"} {
		req := historyRead("getBlock")
		req.Endpoint = name
		held = append(held, now(t, p, req, name))
	}
	req := historyRead("getBlock")
	req.Deadline = t0.Add(time.Second)
	pd := start(context.Background(), p, req)
	r := pd.getAdvancing(t, fc, 100*time.Millisecond)
	for _, pm := range held {
		pm.Release()
	}
	var de *admission.DeadlineError
	if !errors.As(r.err, &de) {
		t.Fatalf("got %v, want a deadline error", r.err)
	}
	msg := de.Error()
	for _, want := range []string{"plain: no history declared", "gone: avoided for the method"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not say %q", msg, want)
		}
	}
}

// BenchmarkAcquireHistory is a getTransaction over three endpoints, one
// declaring history and one avoided for the method (the three passes'
// marks), against the same read not marked a history read
// (BenchmarkAcquireHistory/plain), in the same run, on a fake clock.
func BenchmarkAcquireHistory(b *testing.B) {
	for _, hist := range []bool{false, true} {
		name := "plain"
		if hist {
			name = "history"
		}
		b.Run(name, func(b *testing.B) {
			specs := []endpoint.Spec{ep("ep-0", 0, benchLimits), archive("ep-1", 1, benchLimits), ep("ep-2", 0, benchLimits)}
			p, err := admission.New(specs, pool.DefaultSettings(), admission.Options{Clock: clockwork.NewFakeClockAt(t0)})
			if err != nil {
				b.Fatal(err)
			}
			req := historyRead("getTransaction")
			pm := p.TryAcquire(admission.Request{Role: endpoint.RoleRead, Method: "getTransaction", History: true, Endpoint: "ep-2"})
			pm.Done(rpcAnswer(-32011, retrypolicy.RPCEndpoint))
			req.History = hist
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
