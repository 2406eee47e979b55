package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// tableLegend says what each column of the per-endpoint table holds, for
// a reader who has not seen the code.
const tableLegend = `  TIER: the pool tries tier 0 first, then 1, then 2. ATTEMPTS: the requests the pool sent the
  endpoint: OK answered, LIMITED answered HTTP 429, FAILED any other failure; P50, P99 their
  latency. SHARE: its part of the reads the pool admitted. COST: what the balancer reckons one
  more read there costs now (its recent latency, raised by its failures and its requests in
  flight; of two endpoints it picks the cheaper; - before its first answer). SLOT: the latest
  slot it answered at; LAG: how many slots it is behind the others (lagging: used only as a last
  resort). STATE: its health for reads at the end (unverified: not yet found on mainnet-beta by
  the cluster guard, so not used).
`

// outcomeLegend says what the calls' outcomes mean.
const outcomeLegend = `  ambiguous: may have reached a server, which did not answer: not resent; its caller was told
  (solroute.ErrAmbiguousDispatch) and must find out whether it landed. failed: any other error.
`

// write prints the per-endpoint table, its legend and the summary.
func (r *demoResult) write(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ENDPOINT\tTIER\tATTEMPTS\tOK\tLIMITED\tFAILED\tP50\tP99\tSHARE\tCOST\tSLOT\tLAG\tSTATE")
	for _, e := range r.endpoints {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%.0f%%\t%s\t%s\t%s\t%s\n",
			e.name, e.tier, e.attempts, e.ok, e.rateLimited, e.failed, e.latencyCell(e.p50), e.latencyCell(e.p99),
			100*e.share, e.costCell(), e.slotCell(), e.lagCell(), e.stateCell())
	}
	_ = tw.Flush()
	fmt.Fprint(w, tableLegend)
	fmt.Fprintln(w)

	r.writeCalls(w)
	if l := r.lag; l != nil {
		fmt.Fprintf(w, "slot lag: %s fell %d slots behind at %s; since then it took %d of %d read attempts (%s), as a last resort\n",
			l.endpoint, l.slots, short(l.at), l.reads, l.allReads, percent(l.reads, l.allReads))
	}
	if r.stall != nil {
		r.stall.write(w)
	}
	r.writeSends(w)
	if r.subscription != nil {
		r.subscription.write(w)
	}
	if r.duplicates == 0 {
		fmt.Fprintln(w, "\nNo transaction reached the cluster twice: a send that may have reached a server is")
		fmt.Fprintln(w, "reported to its caller as ambiguous (solroute.ErrAmbiguousDispatch), never resent.")
	}
}

// writeCalls prints the calls' lines: how they ended, in the words the
// transactions' line uses too, the retries, the fallbacks and the
// latency.
func (r *demoResult) writeCalls(w io.Writer) {
	rate := 0.0
	if s := r.elapsed.Seconds(); s > 0 {
		rate = float64(r.calls) / s
	}
	failed := r.failed - r.ambiguous
	if r.interrupted == 0 {
		fmt.Fprintf(w, "calls: %d in %s (%.0f/s): %d ok (%s), %d ambiguous, %d failed\n",
			r.calls, short(r.elapsed), rate, r.ok, percent(r.ok, r.calls), r.ambiguous, failed)
	} else {
		// A call cut short by the interrupt neither succeeded nor failed:
		// the rate is over the calls that finished.
		fmt.Fprintf(w, "calls: %d in %s (%.0f/s): %d ok (%s of the %d that finished), %d ambiguous, %d failed, %d interrupted (cut short by Ctrl-C)\n",
			r.calls, short(r.elapsed), rate, r.ok, percent(r.ok, r.ok+r.failed), r.ok+r.failed, r.ambiguous, failed, r.interrupted)
	}
	fmt.Fprint(w, outcomeLegend)
	fmt.Fprintf(w, "retries: %d (attempts made after a failed one, on the same endpoint or another)\n", r.retries)
	fmt.Fprintf(w, "fallbacks: %s\n", r.fallbacks())
	fmt.Fprintf(w, "latency of a call: p50 %s, p99 %s (its attempts, waits and backoffs included)\n", short(r.p50), short(r.p99))
}

// writeSends prints the transactions' lines: how the sends ended (a part
// of the calls), what the endpoints read, and the duplicates.
func (r *demoResult) writeSends(w io.Writer) {
	fmt.Fprintf(w, "transactions: %d sent, among the calls: %d answered with their signature, %d ambiguous, %d failed",
		r.sends, r.landed, r.ambiguousSends, r.failedSends)
	if r.interruptedSends > 0 {
		fmt.Fprintf(w, ", %d interrupted", r.interruptedSends)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "send requests the endpoints read: %d: %d acted on, %d refused without acting (HTTP 429 or node behind: safe to send elsewhere)\n",
		r.deliveries, r.forwarded, r.deliveries-r.forwarded)
	fmt.Fprintf(w, "duplicates delivered: %d (transactions acted on more than once, counted by the fake endpoints themselves)\n", r.duplicates)
}

// fallbacks says how many successful calls each tier above 0 served
// ("120 ok calls served by tier 1, 31 by tier 2 (tier 0 served 900)"),
// or that tier 0 served them all.
func (r *demoResult) fallbacks() string {
	var tiers []int
	for t, n := range r.byTier {
		if t > 0 && n > 0 {
			tiers = append(tiers, t)
		}
	}
	served := r.byTier[0]
	if len(tiers) == 0 {
		return fmt.Sprintf("none (tier 0 served every successful call: %d)", served)
	}
	slices.Sort(tiers)
	parts := make([]string, len(tiers))
	for i, t := range tiers {
		parts[i] = fmt.Sprintf("%d by tier %d", r.byTier[t], t)
		if i == 0 {
			calls := "calls"
			if r.byTier[t] == 1 {
				calls = "call"
			}
			parts[i] = fmt.Sprintf("%d ok %s served by tier %d", r.byTier[t], calls, t)
		}
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(" (tier 0 served %d)", served)
}
