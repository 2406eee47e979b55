package main

import (
	"fmt"
	"io"
	"time"

	"github.com/solroute/solroute/fixtures"
)

// stallReport is what the calls made while the chain stalled got: no
// endpoint's slot moved, and every endpoint could still answer at the
// slot it had.
type stallReport struct {
	// from and until are the first stall's bounds, into the run; ended
	// is false when the run ended inside it.
	from, until time.Duration
	ended       bool
	// calls started during any stall, and ok of them succeeded.
	calls, ok int
}

// newStallReport reads the stalls of the run that started at start and
// lasted elapsed; nil when none began before its end.
func newStallReport(s *demoStats, ws []fixtures.Window, start time.Time, elapsed time.Duration) *stallReport {
	if len(ws) == 0 || ws[0].From.Sub(start) >= elapsed {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &stallReport{from: max(ws[0].From.Sub(start), 0), until: ws[0].Until.Sub(start), calls: s.stallCalls, ok: s.stallOK}
	r.ended = r.until <= elapsed
	return r
}

// write prints the stall's line of the summary.
func (r *stallReport) write(w io.Writer) {
	end := fmt.Sprintf("to %s", short(r.until))
	if !r.ended {
		end = "to the end of the run"
	}
	fmt.Fprintf(w, "chain stall: no new slot from %s %s; calls made during it: %d, %s ok\n", short(r.from), end, r.calls, percent(r.ok, r.calls))
}
