package bench

import (
	"fmt"
	"slices"
	"time"
)

// fmtKnown prints when each round's client first heard from the lagging
// endpoint: "0.41 ms", or the range over the rounds "0.41–2.1 ms" (in
// the larger one's unit), "never" for rounds where no answer came.
func fmtKnown(known []time.Duration) string {
	var seen []time.Duration
	for _, k := range known {
		if k >= 0 {
			seen = append(seen, k)
		}
	}
	never := len(known) - len(seen)
	switch {
	case len(known) == 0:
		return "—"
	case len(seen) == 0:
		return "never"
	}
	lo, hi := slices.Min(seen), slices.Max(seen)
	s := fmtLatency(lo)
	if hi != lo {
		s += "–" + fmtLatency(hi)
	}
	if never > 0 {
		s += fmt.Sprintf(" (never in %d of %d rounds)", never, len(known))
	}
	return s
}
