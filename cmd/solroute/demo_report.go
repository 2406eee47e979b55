package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
)

// demoResult is the demo's final report.
type demoResult struct {
	elapsed   time.Duration
	endpoints []endpointRow

	// calls = ok + failed + interrupted.
	calls, ok, failed, interrupted, retries int
	byTier                                  map[int]int // successful attempts by tier
	p50, p99                                time.Duration

	// sends = landed + ambiguousSends + failedSends + interruptedSends;
	// each is a part of its kind of call.
	sends, landed, ambiguousSends, failedSends, interruptedSends int
	// deliveries counts sendTransaction requests the fake endpoints read;
	// forwarded those a real node would have acted on (all but the ones
	// refused with 429 or a node-state error, which are resent elsewhere).
	deliveries, forwarded int
	// duplicates counts transactions forwarded more than once, summed over
	// every endpoint: it must be 0.
	duplicates int
	ambiguous  int // ambiguous outcomes reported to callers

	// lag is what became of the endpoint that fell behind; nil when the
	// run ended before it did.
	lag *lagReport
	// stall is what the calls got while the chain stalled; nil when the
	// run ended before it stalled.
	stall *stallReport
}

// lagReport is the share of reads the endpoint that fell behind took
// from then on: the pool sees it lagging at its first answer and uses it
// only as a last resort.
type lagReport struct {
	endpoint string
	slots    uint64
	at       time.Duration
	// reads of allReads read attempts made since it fell behind went to it.
	reads, allReads int
}

// endpointRow is one line of the per-endpoint table.
type endpointRow struct {
	name                              string
	tier                              int
	attempts, ok, rateLimited, failed int
	p50, p99                          time.Duration
	state                             string
	// share is the endpoint's part of the reads admitted, and cost its
	// balancing cost at the end (plans/008-balancing.md).
	share float64
	cost  time.Duration
	// slot is the latest slot the pool saw the endpoint answer at (0: none
	// seen), at commitment; lag how far behind the pool's reference it is
	// (negative: ahead), and standing whether that makes it a last resort.
	slot       uint64
	commitment endpoint.Commitment
	lag        int64
	standing   endpoint.SlotStanding
	// verification is where it stands with the cluster guard.
	verification endpoint.Verification
}

// newDemoResult gathers the report from the stats, the fake endpoints'
// own records and the pool's last snapshot.
func newDemoResult(s *demoStats, c *fixtures.Cluster, snaps []endpoint.Snapshot, elapsed time.Duration) *demoResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &demoResult{
		elapsed: elapsed, calls: s.calls, ok: s.ok, failed: s.failed, interrupted: s.interrupted, retries: s.retries,
		byTier: s.byTier, sends: s.sends, landed: s.sendsLanded, ambiguousSends: s.sendsAmbiguous,
		failedSends: s.sendsFailed, interruptedSends: s.sendsInterrupted, ambiguous: s.ambiguous,
	}
	lat := sortedCopy(s.latencies)
	r.p50, r.p99 = percentile(lat, 50), percentile(lat, 99)
	for _, snap := range snaps {
		if snap.Role != endpoint.RoleRead {
			continue
		}
		row := endpointRow{name: snap.Name, tier: snap.Tier, state: snap.State.String(), share: snap.Share, cost: snap.Cost,
			slot: snap.Slot, commitment: snap.SlotCommitment, lag: snap.SlotLag, standing: snap.SlotStanding,
			verification: snap.Verification}
		if ep := s.endpoints[snap.Name]; ep != nil {
			d := sortedCopy(ep.durations)
			row.attempts, row.ok, row.rateLimited, row.failed = ep.attempts, ep.ok, ep.rateLimited, ep.failed
			row.p50, row.p99 = percentile(d, 50), percentile(d, 99)
		}
		r.endpoints = append(r.endpoints, row)
	}
	if m := s.lag; m != nil {
		r.lag = &lagReport{endpoint: m.endpoint, slots: m.slots, at: m.at, allReads: s.reads - m.allReads}
		if ep := s.endpoints[m.endpoint]; ep != nil {
			r.lag.reads = ep.reads - m.reads
		}
	}
	for _, sig := range s.signatures {
		forwarded := 0
		for _, srv := range c.Servers {
			r.deliveries += srv.Deliveries(sig)
			forwarded += srv.Forwarded(sig)
		}
		r.forwarded += forwarded
		r.duplicates += max(forwarded-1, 0)
	}
	return r
}

// write prints the per-endpoint table and the summary.
func (r *demoResult) write(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ENDPOINT\tTIER\tATTEMPTS\tOK\tLIMITED\tFAILED\tP50\tP99\tSHARE\tCOST\tSLOT\tLAG\tSTATE")
	for _, e := range r.endpoints {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%.0f%%\t%s\t%s\t%s\t%s\n",
			e.name, e.tier, e.attempts, e.ok, e.rateLimited, e.failed, short(e.p50), short(e.p99),
			100*e.share, short(e.cost), e.slotCell(), e.lagCell(), e.stateCell())
	}
	_ = tw.Flush()
	fmt.Fprintln(w)

	rate := 0.0
	if s := r.elapsed.Seconds(); s > 0 {
		rate = float64(r.calls) / s
	}
	fmt.Fprintf(w, "calls: %d in %s (%.0f/s)\n", r.calls, short(r.elapsed), rate)
	if r.interrupted == 0 {
		fmt.Fprintf(w, "success rate: %s (%d ok, %d failed)\n", percent(r.ok, r.calls), r.ok, r.failed)
	} else {
		// A call cut short by the interrupt neither succeeded nor failed:
		// the rate is over the calls that finished.
		fmt.Fprintf(w, "success rate: %s of the %d finished calls (%d ok, %d failed); %d interrupted\n",
			percent(r.ok, r.ok+r.failed), r.ok+r.failed, r.ok, r.failed, r.interrupted)
	}
	fmt.Fprintf(w, "retries: %d\n", r.retries)
	fmt.Fprintf(w, "fallbacks by tier: %s\n", r.fallbacks())
	fmt.Fprintf(w, "latency: p50 %s, p99 %s\n", short(r.p50), short(r.p99))
	if l := r.lag; l != nil {
		fmt.Fprintf(w, "slot lag: %s fell %d slots behind at %s; since then it took %d of %d read attempts (%s), as a last resort\n",
			l.endpoint, l.slots, short(l.at), l.reads, l.allReads, percent(l.reads, l.allReads))
	}
	if r.stall != nil {
		r.stall.write(w)
	}
	fmt.Fprintf(w, "transactions sent: %d (%d answered with their signature, %d ambiguous, %d failed",
		r.sends, r.landed, r.ambiguousSends, r.failedSends)
	if r.interruptedSends > 0 {
		fmt.Fprintf(w, ", %d interrupted", r.interruptedSends)
	}
	fmt.Fprintln(w, ")")
	fmt.Fprintf(w, "send requests seen by the endpoints: %d (%d forwarded, %d refused before forwarding: rate limited or node behind)\n",
		r.deliveries, r.forwarded, r.deliveries-r.forwarded)
	fmt.Fprintf(w, "duplicates delivered: %d\n", r.duplicates)
	fmt.Fprintf(w, "ambiguous outcomes reported: %d\n", r.ambiguous)
	if r.duplicates == 0 {
		fmt.Fprintln(w, "\nNo transaction reached the cluster twice: a send that may have reached a server is")
		fmt.Fprintln(w, "reported to its caller as ambiguous (transport.ErrAmbiguousDispatch), never resent.")
	}
}

// slotCell is the SLOT column: the slot, with its commitment when it is
// not confirmed (the demo's reads are), or "-" when none was seen.
func (e *endpointRow) slotCell() string {
	switch {
	case e.slot == 0:
		return "-"
	case e.commitment != endpoint.Confirmed:
		return fmt.Sprintf("%d (%s)", e.slot, e.commitment)
	}
	return fmt.Sprint(e.slot)
}

// lagCell is the LAG column: slots behind the pool's reference (negative:
// ahead), then the standing when it makes the endpoint a last resort
// ("100 lagging"); "-" when no slot was seen.
func (e *endpointRow) lagCell() string {
	switch {
	case e.slot == 0:
		return "-"
	case e.standing != endpoint.InStep:
		return fmt.Sprintf("%d %s", e.lag, e.standing)
	}
	return fmt.Sprint(e.lag)
}

// stateCell is the STATE column: the read role's health state, or where
// the endpoint stands with the cluster guard when it may not serve
// ("unverified", "wrong-cluster").
func (e *endpointRow) stateCell() string {
	if e.verification != endpoint.Verified {
		return e.verification.String()
	}
	return e.state
}

// fallbacks lists the calls served by each tier above 0 ("tier 1: 120,
// tier 2: 31"), or "none".
func (r *demoResult) fallbacks() string {
	var tiers []int
	for t, n := range r.byTier {
		if t > 0 && n > 0 {
			tiers = append(tiers, t)
		}
	}
	if len(tiers) == 0 {
		return "none"
	}
	slices.Sort(tiers)
	parts := make([]string, len(tiers))
	for i, t := range tiers {
		parts[i] = fmt.Sprintf("tier %d: %d", t, r.byTier[t])
	}
	served := r.byTier[0]
	return strings.Join(parts, ", ") + fmt.Sprintf(" (tier 0 served %d)", served)
}
