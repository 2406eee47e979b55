package admission_test

import (
	"context"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/retrypolicy"
)

// hangTimeout is a never-answering endpoint's failure: the attempt timed
// out after it may have been written.
var hangTimeout = retrypolicy.Outcome{Cause: retrypolicy.Timeout, Dispatch: retrypolicy.MaybeDispatched,
	Fault: retrypolicy.EndpointFault}

// only is a read pinned to endpoint name.
func only(name string) admission.Request {
	r := read
	r.Endpoint = name
	return r
}

// decayedHang builds a pool of a, b and c in one tier, then lets c fail
// once (a hang, its attempt cut at 500 ms) and, 10 s later, a and b each
// answer in 20 ms: c is Degraded, its failure penalty decayed to about
// 45 µs of cost, cheaper than a's and b's 20 ms. This is the soak's dead
// reader between ejections (plans/008-balancing.md, "The last chance").
func decayedHang(t *testing.T, extra ...endpoint.Spec) (*admission.Pool, func() time.Time) {
	t.Helper()
	p, fc := newPool(t, append([]endpoint.Spec{ep("a", 0, endpoint.Limits{}), ep("b", 0, endpoint.Limits{}),
		ep("c", 0, endpoint.Limits{})}, extra...)...)
	pm := now(t, p, only("c"), "c")
	fc.Advance(500 * time.Millisecond)
	pm.Done(hangTimeout)
	fc.Advance(10 * time.Second)
	for _, name := range []string{"a", "b"} {
		pm := now(t, p, only(name), name)
		fc.Advance(20 * time.Millisecond)
		pm.Done(success())
	}
	if h := snapshotOf(t, p, "c").State; h != endpoint.Degraded {
		t.Fatalf("c is %v, want degraded", h)
	}
	return p, fc.Now
}

// firsts counts, over n acquisitions of req released at once, which
// endpoint each went to.
func firsts(t *testing.T, p *admission.Pool, req admission.Request, n int) map[string]int {
	t.Helper()
	got := map[string]int{}
	for range n {
		pm := p.TryAcquire(req)
		if pm == nil {
			t.Fatal("nothing admitted")
		}
		got[pm.Endpoint()]++
		pm.Release()
	}
	return got
}

// TestLastChanceSkipsADecayedFailure: the balancer alone sends most
// reads to c, whose failure has decayed below its peers' latency (that is
// how a failing endpoint is probed again); a read's last chance
// (Request.Proven) goes to an endpoint that answered since it last
// failed, every time.
func TestLastChanceSkipsADecayedFailure(t *testing.T) {
	p, _ := decayedHang(t)
	plain := firsts(t, p, read, 300)
	t.Logf("plain reads: %v", plain)
	if plain["c"] < 100 {
		t.Fatalf("plain reads: c got %d of 300, want the balancer to prefer it (the premise)", plain["c"])
	}
	last := read
	last.Proven = true
	got := firsts(t, p, last, 300)
	t.Logf("last chances: %v", got)
	if got["c"] != 0 || got["a"]+got["b"] != 300 {
		t.Fatalf("last chances: %v, want none on c", got)
	}
}

// TestLastChanceStillUsesTheDegraded: Proven only orders, and waits a
// moment. With a and b unable to take the request (avoided), c takes it
// at once; with a, the one Available peer, at its concurrency cap, the
// last chance waits one slot (shortPatience) for it, then c takes it.
func TestLastChanceStillUsesTheDegraded(t *testing.T) {
	p, _ := decayedHang(t)
	last := read
	last.Proven = true
	last.Avoid = []string{"a", "b"}
	now(t, p, last, "c").Release()

	capped, fc := newPool(t, ep("a", 0, endpoint.Limits{MaxConcurrentRequests: 1}), ep("c", 0, endpoint.Limits{}))
	pm := now(t, capped, only("c"), "c")
	pm.Done(hangTimeout)
	fc.Advance(10 * time.Second)
	held := now(t, capped, only("a"), "a") // a is full now
	last = read
	last.Proven = true
	pd := start(context.Background(), capped, last)
	pd.mustWait(t, fc, 1)
	fc.Advance(400 * time.Millisecond) // one slot's patience
	pd.permit(t, "c").Release()
	held.Done(success())
}

// TestLastChanceGoesToAnAnswerInAnyTier: a tier-0 endpoint that has not
// answered since it failed yields a last chance to a tier-1 one that
// answered, as a tier-0 endpoint short of the read's slot does: a tier
// is a preference, and this is the attempt the call has left.
func TestLastChanceGoesToAnAnswerInAnyTier(t *testing.T) {
	p, fc := newPool(t, ep("c", 0, endpoint.Limits{}), ep("backup", 1, endpoint.Limits{}))
	pm := now(t, p, only("c"), "c")
	pm.Done(hangTimeout)
	fc.Advance(10 * time.Second)
	now(t, p, only("backup"), "backup").Done(success())
	last := read
	last.Proven = true
	now(t, p, last, "backup").Release()
	now(t, p, read, "c").Release() // a first attempt keeps the tiers
}
