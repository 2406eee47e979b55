package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/solroute/solroute"
)

// print writes one notification's line and counts it.
func (w *watcher) print(l watchLine) {
	out := w.env.stdout
	if l.gap != nil {
		w.gaps++
		fmt.Fprintf(out, "%-9s  slots %d to %d may be missing (%s): %s; re-read that range to miss nothing\n",
			"gap", l.gap.From, l.gap.To, l.gap.Reason, gapCause(l.gap.Reason))
		return
	}
	w.delivered++
	from := "read back over HTTP"
	if l.readBack {
		w.readBack++
	} else {
		from = "first: " + l.endpoint
		if w.first[l.endpoint] == 0 {
			w.order = append(w.order, l.endpoint)
		}
		w.first[l.endpoint]++
	}
	fmt.Fprintf(out, "%-9s  %-10d  %s  (%s)\n", w.target.kind, l.slot, l.summary, from)
}

// summary writes the closing lines: each count, in words a reader who has
// not seen the code understands.
func (w *watcher) summary(s solroute.SubscriptionCounts, elapsed time.Duration, stopped string) {
	out := w.env.stdout
	var by []string
	for _, ep := range w.order {
		by = append(by, fmt.Sprintf("%s %d", ep, w.first[ep]))
	}
	firsts := "none"
	if len(by) > 0 {
		firsts = strings.Join(by, ", ")
	}
	fmt.Fprintf(out, "\nwatch: %s after %s: %d notification(s) delivered\n", stopped, short(elapsed.Round(time.Millisecond)), w.delivered)
	fmt.Fprintf(out, "  delivered first by: %s; %d read back over HTTP after a switch of endpoint\n", firsts, w.readBack)
	fmt.Fprintf(out, "  duplicates suppressed: %d (the same notification again, from another of the %d endpoints holding it)\n", s.Duplicates, w.redundancy)
	fmt.Fprintf(out, "  stale: %d (older, by context slot, than one already delivered: not delivered)\n", s.Stale)
	fmt.Fprintf(out, "  dropped: %d (let go because this command read slower than they came)\n", s.Dropped)
	fmt.Fprintf(out, "  failovers: %d (an endpoint's stream closed, stalled, lagged or failed, and was placed again)\n", s.Failovers)
	if w.gaps > 0 {
		fmt.Fprintf(out, "  gaps: %d (slot ranges whose notifications may be missing, printed above)\n", w.gaps)
	}
}

// gapCause says what a gap's reason means.
func gapCause(reason string) string {
	switch reason {
	case "overflow":
		return "this terminal read slower than notifications came, and the buffer dropped them"
	case "failover":
		return "every endpoint holding the stream failed"
	}
	return "the stream lost notifications"
}
