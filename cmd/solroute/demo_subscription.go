package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/fixtures"
)

// demoPubSub names the endpoints that also serve PubSub (WebSocket) in the
// demo, in order: the one slot subscription is held on all three (every
// connection carries a slot heartbeat).
var demoPubSub = []string{demoPrimaryA, demoPrimaryB, demoBackup}

// demoKilled is the endpoint whose PubSub server is killed at
// demoKillFrom of the run: every connection cut, every new one refused,
// to the end of the run.
const (
	demoKilled   = demoPrimaryA
	demoKillFrom = 0.15
)

// slotWatch is the demo's slot subscription: what it delivered and which
// endpoint delivered each first.
type slotWatch struct {
	mu       sync.Mutex
	slots    []uint64
	first    map[string]int
	order    []string
	killedAt time.Duration // 0 until the kill
	after    int           // slots delivered after the kill
	err      error         // how it ended, when not by the run's end
	stats    solroute.SubscriptionCounts
}

// watchSlots subscribes to slots and records each until ctx ends; it
// returns once subscribed (or failed), reading in the background on wg.
func watchSlots(ctx context.Context, c *solroute.Client, wg *sync.WaitGroup) *slotWatch {
	w := &slotWatch{first: map[string]int{}}
	sub, err := c.SlotSubscribe(ctx)
	if err != nil {
		w.err = err
		return w
	}
	wg.Go(func() {
		defer sub.Close()
		for {
			n, err := sub.Next(ctx)
			w.mu.Lock()
			if err != nil {
				if ctx.Err() == nil {
					w.err = err
				}
				w.stats = sub.Counts()
				w.mu.Unlock()
				return
			}
			w.slots = append(w.slots, n.Slot)
			if w.killedAt > 0 {
				w.after++
			}
			if w.first[n.Endpoint] == 0 {
				w.order = append(w.order, n.Endpoint)
			}
			w.first[n.Endpoint]++
			w.mu.Unlock()
		}
	})
	return w
}

// killPubSub kills p at demoKillFrom of the run, and records when.
func killPubSub(ctx context.Context, clock clockwork.Clock, p *fixtures.PubSub, duration time.Duration, w *slotWatch) {
	at := time.Duration(float64(duration) * demoKillFrom)
	if !sleep(ctx, clock, at) {
		return
	}
	p.SetDown(true)
	w.mu.Lock()
	w.killedAt = at
	w.mu.Unlock()
}

// missed counts the slots between the subscription's first delivery and
// its last that were not delivered, and the deliveries out of order or
// repeated.
func (w *slotWatch) missed() (missed, disordered int) {
	for i := 1; i < len(w.slots); i++ {
		switch d := w.slots[i] - w.slots[i-1]; {
		case w.slots[i] <= w.slots[i-1]:
			disordered++
		case d > 1:
			missed += int(d - 1)
		}
	}
	return missed, disordered
}

// write prints the subscription's lines of the summary.
func (w *slotWatch) write(out io.Writer) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fmt.Fprintf(out, "\nsubscription: one slot subscription, held on %s at once (each sends every slot;\n", strings.Join(demoPubSub, ", "))
	fmt.Fprintln(out, "  the first copy of a slot is delivered, the others suppressed)")
	if w.err != nil {
		fmt.Fprintf(out, "  it failed: %v\n", w.err)
		return
	}
	if w.killedAt > 0 {
		fmt.Fprintf(out, "  %s's WebSocket server was killed at %s: its connections cut, new ones refused to the end\n", demoKilled, short(w.killedAt))
	} else {
		fmt.Fprintf(out, "  %s's WebSocket server was to be killed at %.0f%% of the run; the run ended first\n", demoKilled, 100*demoKillFrom)
	}
	missed, disordered := w.missed()
	span := "none"
	if n := len(w.slots); n > 0 {
		span = fmt.Sprintf("%d to %d", w.slots[0], w.slots[n-1])
	}
	fmt.Fprintf(out, "  slots delivered: %d (%s), %d of them after the kill; missed %d, out of order or twice %d\n",
		len(w.slots), span, w.after, missed, disordered)
	var by []string
	for _, ep := range w.order {
		by = append(by, fmt.Sprintf("%s %d", ep, w.first[ep]))
	}
	fmt.Fprintf(out, "  delivered first by: %s\n", strings.Join(by, ", "))
	fmt.Fprintf(out, "  duplicates suppressed: %d (copies of a slot already delivered, from the other endpoints)\n", w.stats.Duplicates)
	fmt.Fprintf(out, "  late copies dropped: %d (slots older than the start or than one delivered, from an endpoint a few slots behind)\n", w.stats.Stale)
	fmt.Fprintf(out, "  failovers: %d (a connection lost, or silent for 2.5 slots while the others moved, as an endpoint\n", w.stats.Failovers)
	fmt.Fprintln(out, "  drifting behind is, and replaced; the subscription went on on the others and never ended)")
	fmt.Fprintln(out, "  no slot comes while the chain stalls: none is due then, and no endpoint is blamed for the silence")
}
