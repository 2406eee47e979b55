package main

import (
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
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
	ambiguous  int // calls that failed ambiguous (ErrAmbiguousDispatch), any method

	// lag is what became of the endpoint that fell behind; nil when the
	// run ended before it did.
	lag *lagReport
	// stall is what the calls got while the chain stalled; nil when the
	// run ended before it stalled.
	stall *stallReport
	// subscription is the slot subscription's report.
	subscription *slotWatch
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
	// timed reports whether the balancer has timed an answer of the
	// endpoint: before, its cost is a placeholder (an hour per request
	// in flight, plans/008-balancing.md).
	timed bool
	// slot is the latest slot the pool saw the endpoint answer at (0: none
	// seen), at commitment; lag how far behind the pool's reference it is
	// (negative: ahead), and standing whether that makes it a last resort.
	slot       uint64
	commitment rpc.CommitmentType
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
		row := endpointRow{name: snap.Name, tier: snap.Tier, state: snap.State.String(), share: snap.Share, cost: snap.Cost, timed: snap.Latency > 0,
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
		for _, ep := range c.Endpoints() {
			_, srv := ep.Name, c.Server(ep.Name)
			r.deliveries += srv.Deliveries(sig)
			forwarded += srv.Forwarded(sig)
		}
		r.forwarded += forwarded
		r.duplicates += max(forwarded-1, 0)
	}
	return r
}

// latencyCell is a P50 or P99 cell: d, or "-" without any attempt.
func (e *endpointRow) latencyCell(d time.Duration) string {
	if e.attempts == 0 {
		return "-"
	}
	return short(d)
}

// costCell is the COST column: the balancing cost, or "-" before the
// balancer timed an answer of the endpoint.
func (e *endpointRow) costCell() string {
	if !e.timed {
		return "-"
	}
	return short(e.cost)
}

// slotCell is the SLOT column: the slot, with its commitment when it is
// not confirmed (the demo's reads are), or "-" when none was seen.
func (e *endpointRow) slotCell() string {
	switch {
	case e.slot == 0:
		return "-"
	case e.commitment != rpc.CommitmentConfirmed:
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
