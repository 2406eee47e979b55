package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
)

// How often the demo's progress is shown.
const (
	// ttyProgressEvery refreshes the one progress line on a terminal.
	ttyProgressEvery = 500 * time.Millisecond
	// plainProgressEvery writes a new progress line when stdout is not a
	// terminal (a file, a pipe, a test's buffer).
	plainProgressEvery = 2 * time.Second
)

// progressPrinter shows the demo's running totals and each endpoint's
// state: on a terminal one line rewritten in place with \r, otherwise a
// plain line every plainProgressEvery.
type progressPrinter struct {
	w      io.Writer
	tty    bool
	clock  clockwork.Clock
	pool   *solroute.Client
	stats  *demoStats
	start  time.Time
	last   progress
	lastAt time.Time
	drawn  bool // a \r line is on screen
}

func newProgressPrinter(w io.Writer, clock clockwork.Clock, p *solroute.Client, stats *demoStats, start time.Time) *progressPrinter {
	return &progressPrinter{w: w, tty: isTerminal(w), clock: clock, pool: p, stats: stats, start: start, lastAt: start}
}

// loop shows progress until duration has passed since start or ctx ends.
func (p *progressPrinter) loop(ctx context.Context, duration time.Duration) {
	every := plainProgressEvery
	if p.tty {
		every = ttyProgressEvery
	}
	tick := p.clock.NewTicker(every)
	defer tick.Stop()
	end := p.clock.NewTimer(duration - p.clock.Since(p.start))
	defer end.Stop()
	for {
		select {
		case <-tick.Chan():
			p.show()
		case <-end.Chan():
			return
		case <-ctx.Done():
			return
		}
	}
}

// show draws one progress line.
func (p *progressPrinter) show() {
	now := p.clock.Now()
	cur := p.stats.progress()
	rate := 0.0
	if dt := now.Sub(p.lastAt).Seconds(); dt > 0 {
		rate = float64(cur.calls-p.last.calls) / dt
	}
	p.last, p.lastAt = cur, now
	line := fmt.Sprintf("%6s  %d calls  %.0f/s  %s ok  %d retries  %d fallbacks  | %s",
		short(now.Sub(p.start).Truncate(100*time.Millisecond)), cur.calls, rate, percent(cur.ok, cur.calls),
		cur.retries, cur.fallbacks, endpointStates(p.pool.Snapshot()))
	if p.tty {
		fmt.Fprintf(p.w, "\r\x1b[K%s", line)
		p.drawn = true
		return
	}
	fmt.Fprintln(p.w, line)
}

// finish ends the progress line on a terminal.
func (p *progressPrinter) finish() {
	if p.drawn {
		fmt.Fprintln(p.w)
	}
	fmt.Fprintln(p.w)
}

// endpointStates lists, in a few words each, the read-role endpoints that
// are not plainly ok: "limited" and the cooldown left, "degraded",
// "ejected"; "lagging" or "outlier" and the slots off the pool's
// reference; "unverified" or "wrong-cluster" while the cluster guard
// holds it ("primary-a limited 600ms  primary-c lagging 100"). "all ok"
// when none is: five endpoints in full would not fit a line.
func endpointStates(snaps []endpoint.Snapshot) string {
	var b strings.Builder
	for _, s := range snaps {
		if s.Role != endpoint.RoleRead {
			continue
		}
		var words []string
		switch s.State {
		case endpoint.Available:
		case endpoint.RateLimited:
			words = append(words, "limited")
		default:
			words = append(words, s.State.String())
		}
		if s.CooldownRemaining > 0 {
			words = append(words, short(s.CooldownRemaining))
		}
		if s.SlotStanding != endpoint.InStep {
			words = append(words, s.SlotStanding.String(), fmt.Sprint(s.SlotLag))
		}
		if s.Verification != endpoint.Verified {
			words = append(words, s.Verification.String())
		}
		if len(words) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("  ")
		}
		b.WriteString(s.Name)
		b.WriteByte(' ')
		b.WriteString(strings.Join(words, " "))
	}
	if b.Len() == 0 {
		return "all ok"
	}
	return b.String()
}

// percent formats n/total as "99.5%" ("-" when total is 0).
func percent(n, total int) string {
	if total == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(total))
}

// isTerminal reports whether w is a character device such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
