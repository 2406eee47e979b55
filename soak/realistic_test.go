package soak

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// The provider mix (issue 20): TestSoak's cluster behaves like the one
// users have, not a tidy one. Every endpoint drifts 0 to 5 slots behind
// the tip (fixtures.Drift, a seed of its own), on a chain that stalls
// longer than 10 s (fixtures.Stalls): every run goes through the first
// stall. In tier 0 one endpoint lies (liarName: getSlot ahead, heights
// ahead, a stale status cache), one answers a share of its reads at once
// with the node's own JSON-RPC errors (flakyName: -32603, and -32010 or
// -32011 where agave would), one garbles a share of its answers
// (garbledName: a result and an error in one envelope, a duplicate
// context, case-variant keys), and in tier 1 one reader never answers
// (deadName). Those behaviours stay whatever the chaos does; the chaos
// comes on top.

// The endpoints of the mix.
const (
	liarName    = "t0-liar"
	flakyName   = "t0-flaky"
	garbledName = "t0-garbled"
	deadName    = "t1-dead"
)

const (
	// flakyRate is the share of flakyName's reads answered with a node
	// error, garbleRate the share of garbledName's requests garbled.
	flakyRate  = 0.3
	garbleRate = 0.1
	// liarSlotAhead is how far ahead the liar's getSlot is: the most any
	// endpoint reports past the tip.
	liarSlotAhead = 3
	// The chain's stalls: the first 2 s after the cluster starts, then
	// about every 30 s, each 12 s long, past the ~6 s after which a
	// client extrapolating slots at 400 ms asks for slots no node has.
	soakStallFirst = 2 * time.Second
	soakStallEvery = 30 * time.Second
	soakStallFor   = 12 * time.Second
	// stallRecovery is how long the run goes on after the first stall:
	// reads must be served again once slots come.
	stallRecovery = 2 * time.Second
	// maxCallsFactor bounds the calls of a run that goes on until the
	// first stall is over: at most this many times the calls asked.
	maxCallsFactor = 20
)

// soakLies are the liar's lies.
func soakLies() fixtures.Lies {
	return fixtures.Lies{HeightAhead: 40, SlotAhead: liarSlotAhead, StaleStatuses: 64}
}

// soakStalls is the chain's stall schedule, drawn from the seed.
func soakStalls(seed uint64) *fixtures.Stalls {
	return &fixtures.Stalls{First: soakStallFirst, Every: soakStallEvery, For: soakStallFor, Seed: mix(seed, 0x57a11)}
}

// endpointErrors are the node's own JSON-RPC errors flakyName answers:
// another endpoint would have served the call.
var endpointErrors = map[int]bool{-32603: true, -32010: true, -32011: true}

// realism counts what the provider mix did to the run's reads.
type realism struct {
	// reads counts slot-bearing reads by [started in a stall][succeeded].
	reads [2][2]atomic.Int64
	// endpointErrorsReturned counts reads whose node error was taken for
	// the call's answer.
	endpointErrorsReturned atomic.Int64
}

func (r *realism) read(inStall, ok bool) {
	a, b := 0, 0
	if inStall {
		a = 1
	}
	if ok {
		b = 1
	}
	r.reads[a][b].Add(1)
}

// inStall reports whether t is inside one of the chain's stalls.
func (s *soak) inStall(t time.Time) bool {
	for _, w := range s.stalls {
		if !t.Before(w.From) && t.Before(w.Until) {
			return true
		}
	}
	return false
}

// checkEndpointError checks a failed read: an endpoint's own error (the
// node's, not the call's: another endpoint would have served it) is never
// judged final. A retry refused for another reason (the retry budget,
// the deadline, MaxRetries) is not this check's: the error was taken for
// the endpoint's, the call just could not try again.
func (s *soak) checkEndpointError(i int, method string, ce *transport.CallError) {
	for _, a := range ce.Attempts {
		if !endpointErrors[a.RPCCode] || a.Decision.Retry || !judgedFinal(a.Decision.Rule) {
			continue
		}
		s.real.endpointErrorsReturned.Add(1)
		s.bad.addAs("a node's own error was taken for the call's answer", "call %d (%s): %s's own node error %d was taken for the call's answer (%s), not failed over: %s",
			i, method, a.Endpoint, a.RPCCode, a.Decision.Reason, describe(ce.Attempts))
		return
	}
}

// judgedFinal reports whether a stopping rule judged the attempt's answer
// final (the same anywhere), rather than a bound stopping the call.
func judgedFinal(r retrypolicy.Rule) bool {
	switch r {
	case retrypolicy.RuleRPCApplication, retrypolicy.RuleRequestError, retrypolicy.RuleNotApplicable,
		retrypolicy.RuleUnknownInput, retrypolicy.RuleInvalidResponse:
		return true
	}
	return false
}

// tipAt is the tip at commitment c ("processed", "confirmed",
// "finalized") when the processed tip is tip.
func tipAt(tip uint64, c string) uint64 {
	switch c {
	case "processed":
		return tip
	case "confirmed":
		return tip - min(tip, fixturedata.ConfirmedDepth)
	}
	return tip - min(tip, fixturedata.FinalizedDepth)
}

// checkFloors checks, from what the servers recorded, that no request
// asked for a minContextSlot past the highest slot any endpoint could
// have reported at its commitment when it arrived: the cluster's tip
// there, plus the liar's lead. A floor above that comes from nothing an
// endpoint said (an extrapolation past a stalled chain): every endpoint
// refuses it (-32016), and the read fails although every node can serve
// it.
func (s *soak) checkFloors() {
	checked, above := 0, 0
	for _, e := range s.cluster.Endpoints() {
		for _, r := range s.cluster.Server(e.Name).Requests() {
			if r.MinContextSlot == 0 || r.Tip == 0 {
				continue
			}
			checked++
			bound := tipAt(r.Tip, r.Commitment) + liarSlotAhead
			if r.MinContextSlot <= bound {
				continue
			}
			above++
			s.bad.addAs("a minContextSlot past every endpoint's slot", "%s: request %d (%s, %s) asked for minContextSlot %d, %d past the highest slot any endpoint could report (%d; tip %d)%s",
				e.Name, r.N, r.Method, r.Commitment, r.MinContextSlot, r.MinContextSlot-bound, bound, r.Tip, s.stallNote(r.At))
		}
	}
	if checked == 0 {
		s.bad.add("no request carried a minContextSlot: the floor check proves nothing")
	}
	s.t.Logf("floors: %d requests carried a minContextSlot, %d of them past every endpoint's slot", checked, above)
}

// stallNote says where t is against the chain's stalls, for a violation.
func (s *soak) stallNote(t time.Time) string {
	for _, w := range s.stalls {
		if !t.Before(w.From) && t.Before(w.Until) {
			return fmt.Sprintf(", %s into a stall of the chain", t.Sub(w.From).Round(time.Millisecond))
		}
		if !t.Before(w.Until) && t.Before(w.Until.Add(soakStallEvery/2)) {
			return fmt.Sprintf(", %s after a stall of the chain ended", t.Sub(w.Until).Round(time.Millisecond))
		}
	}
	return ""
}

// log checks that every behaviour of the mix showed up, so that the
// checks over them prove something, and logs what it did.
func (r *realism) log(s *soak) {
	kinds := map[fixtures.FaultKind]int{}
	requests := map[string]int{}
	for _, name := range []string{liarName, flakyName, garbledName, deadName} {
		srv := s.cluster.Server(name)
		st := srv.Stats()
		requests[name] = st.Requests
		for k, n := range st.Faults {
			if name == garbledName || k == fixtures.Hang || name == flakyName && k == fixtures.RPCError {
				kinds[k] += n
			}
		}
	}
	var missing []string
	for _, k := range []fixtures.FaultKind{fixtures.ResultAndError, fixtures.DuplicateContext, fixtures.CaseVariantKeys, fixtures.RPCError, fixtures.Hang} {
		if kinds[k] == 0 {
			missing = append(missing, k.String())
		}
	}
	if len(missing) > 0 {
		s.bad.add("the provider mix never applied %v: the checks over them prove nothing", missing)
	}
	if len(s.stalls) == 0 || time.Now().Before(s.stalls[0].Until) {
		s.bad.add("the run ended before the chain's first stall did")
	}
	var ws []string
	for _, w := range s.stalls {
		if w.From.Before(time.Now()) {
			ws = append(ws, fmt.Sprintf("%s for %s", w.From.Format("15:04:05.000"), w.Until.Sub(w.From)))
		}
	}
	rd := func(a, b int) int64 { return r.reads[a][b].Load() }
	s.t.Logf("provider mix: requests %v; garbles and node errors %v; chain stalls [%s]; slot-bearing reads in a stall: %d ok, %d failed; outside: %d ok, %d failed; %d reads ended by a node error taken for the call's answer",
		requests, kinds, strings.Join(ws, ", "), rd(1, 1), rd(1, 0), rd(0, 1), rd(0, 0), r.endpointErrorsReturned.Load())
}
