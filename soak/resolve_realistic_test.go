package soak

import (
	"fmt"
	"slices"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
)

// The resolve soak's provider mix (issue 20): every endpoint drifts 0 to
// 5 slots behind the tip on a seed of its own, on a chain that stalls
// (resolveStalls); r1-garble also garbles sends and reads; r0-liar lies
// about the chain (a finalized height 40 blocks ahead, getSlot ahead, a
// status cache that answers null for 64 slots after a landing), r0-flaky
// answers a share of its reads at once with the node's own errors
// (-32603; -32011 to a history search), r1-dead never answers. A
// resolver that takes one endpoint's word for the chain, or counts a
// dead one as a needed witness, or refuses an honest endpoint's answer
// for being a few slots behind another's, is caught by judge and
// judgeTiming.

// The resolve soak's stalls: 1 s after the cluster starts, then about
// every 30 s, each 11 s long.
const (
	resolveStallFirst = time.Second
	resolveStallEvery = 30 * time.Second
	resolveStallFor   = 11 * time.Second
)

func resolveStalls(seed uint64) *fixtures.Stalls {
	return &fixtures.Stalls{First: resolveStallFirst, Every: resolveStallEvery, For: resolveStallFor, Seed: mix(seed, 0x57a11)}
}

// resolveMix is the liar, the flaky endpoint and the dead reader.
func resolveMix(seed uint64) []resolveMember {
	lies := soakLies()
	return []resolveMember{
		{name: "r0-liar", tier: 0, lies: &lies, sendRate: 0.3, readRate: 0.02,
			sendFaults: []fixtures.Fault{{Kind: fixtures.ResetAfterRead}, fixtures.Status(429, "")},
			readFaults: []fixtures.Fault{fixtures.Status(429, "")}},
		{name: "r0-flaky", tier: 0, behaviour: fixtures.EndpointErrors(mix(seed, 0xf1a), flakyRate), sendRate: 0.3,
			sendFaults: []fixtures.Fault{{Kind: fixtures.Hang}, fixtures.Status(503, "")}},
		{name: "r1-dead", tier: 1, readOnly: true, behaviour: fixtures.Always(fixtures.Fault{Kind: fixtures.Hang})},
	}
}

// judgeTiming returns how s's verdict broke the rule of when it may come,
// "" when it did not: Expired no sooner than the cluster's finalized
// height passed lastValidBlockHeight (only a lie says so sooner, even
// when the transaction can in fact no longer land).
func (r *resolveSoak) judgeTiming(s *resolveSend) string {
	if s.res.Status != confirm.Expired {
		return ""
	}
	if past := r.ledger.FinalizedPast(s.lvbh); s.at.Before(past) {
		return fmt.Sprintf("expired %s before the cluster's finalized height passed lastValidBlockHeight %d: concluded from a height no honest endpoint had",
			past.Sub(s.at).Round(time.Millisecond), s.lvbh)
	}
	return ""
}

// verdictLatency is how long after it was due a verdict came: a landing
// once its slot was at the commitment asked on the tip, an expiry once
// the finalized height passed lastValidBlockHeight. ok is false for
// another verdict.
func (r *resolveSoak) verdictLatency(s *resolveSend) (time.Duration, bool) {
	switch s.res.Status {
	case confirm.Landed, confirm.Failed:
		depth := map[rpc.CommitmentType]uint64{rpc.CommitmentConfirmed: fixturedata.ConfirmedDepth, rpc.CommitmentFinalized: fixturedata.FinalizedDepth}[s.plan.commitment]
		return s.at.Sub(r.ledger.TipReached(s.truth.Slot + depth)), true
	case confirm.Expired:
		return s.at.Sub(r.ledger.FinalizedPast(s.lvbh)), true
	}
	return 0, false
}

// latencies formats the verdict latencies, landed and expired: p50, p90,
// max.
func (r *resolveSoak) latencies() string {
	var landed, expired []time.Duration
	for i := range r.sends {
		s := &r.sends[i]
		d, ok := r.verdictLatency(s)
		switch {
		case !ok:
		case s.res.Status == confirm.Expired:
			expired = append(expired, d)
		default:
			landed = append(landed, d)
		}
	}
	q := func(ds []time.Duration) string {
		if len(ds) == 0 {
			return "none"
		}
		slices.Sort(ds)
		at := func(f float64) time.Duration {
			return ds[min(int(f*float64(len(ds))), len(ds)-1)].Round(time.Millisecond)
		}
		return fmt.Sprintf("%d, p50 %s, p90 %s, max %s", len(ds), at(0.5), at(0.9), at(1))
	}
	return fmt.Sprintf("verdict latency after it was due: landed %s; expired %s", q(landed), q(expired))
}

// checkMix checks that the provider mix showed up: the chain stalled
// before the run ended, the liar and the dead reader were asked, the
// flaky endpoint answered node errors, and garbles were applied.
func (r *resolveSoak) checkMix() {
	if ws := r.stallWindows(time.Now()); len(ws) == 0 || time.Now().Before(ws[0].Until) {
		r.bad.add("the run ended before the chain's first stall did: %v", ws)
	}
	kinds := map[fixtures.FaultKind]int{}
	for _, name := range []string{"r0-liar", "r0-flaky", "r1-dead", "r1-garble"} {
		st := r.cluster.Server(name).Stats()
		if st.Requests == 0 {
			r.bad.add("%s received no request: its part of the mix proves nothing", name)
		}
		for k, n := range st.Faults {
			kinds[k] += n
		}
	}
	for _, k := range []fixtures.FaultKind{fixtures.RPCError, fixtures.Hang, fixtures.ResultAndError, fixtures.DuplicateContext, fixtures.CaseVariantKeys} {
		if kinds[k] == 0 {
			r.bad.add("the provider mix never applied %s", k)
		}
	}
	r.t.Logf("provider mix: faults applied by the liar, the flaky, the dead and the garbling endpoints %v; stalls %v", kinds, r.stallWindows(time.Now()))
}

// stallWindows lists the stalls of the cluster's chain that begin before
// until: every member shares the schedule (resolveStalls), so any
// member's server tells them.
func (r *resolveSoak) stallWindows(until time.Time) []fixtures.Window {
	return r.cluster.Server(r.cluster.Endpoints()[0].Name).StallWindows(until)
}
