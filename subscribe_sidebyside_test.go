package solroute_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/gagliardetto/solana-go/rpc/ws"

	"github.com/solroute/solroute/fixtures"
)

// sideBySide is what one client made of a run: the slots it delivered
// (in order), and the error that ended it, if one did.
type sideBySide struct {
	slots []uint64
	ended error
}

// tally counts, over the slots (from, to] the cluster produced, those
// delivered, missed, and delivered again or out of order.
func (s sideBySide) tally(from, to uint64) (delivered, missed, repeated int) {
	seen := map[uint64]bool{}
	last := uint64(0)
	for _, sl := range s.slots {
		if sl <= last {
			repeated++
		}
		last = max(last, sl)
		if sl > from && sl <= to && !seen[sl] {
			seen[sl] = true
			delivered++
		}
	}
	return delivered, int(to-from) - delivered, repeated
}

// solanaGoSlots reads a solana-go ws slot subscription on url until it
// ends (a read error) or the client is closed; wait returns what it got.
func solanaGoSlots(t *testing.T, url string) (newest func() uint64, wait func() sideBySide) {
	t.Helper()
	cl, err := ws.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := cl.SlotSubscribe()
	if err != nil {
		cl.Close()
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got sideBySide
	done := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer close(done)
		for {
			r, err := sub.Recv(ctx)
			mu.Lock()
			if err != nil {
				if ctx.Err() == nil {
					got.ended = err
				}
				mu.Unlock()
				return
			}
			got.slots = append(got.slots, r.Slot)
			mu.Unlock()
		}
	}()
	var once sync.Once
	closeFn := func() { once.Do(func() { cancel(); cl.Close() }) }
	t.Cleanup(closeFn)
	newest = func() uint64 {
		mu.Lock()
		defer mu.Unlock()
		if len(got.slots) == 0 {
			return 0
		}
		return got.slots[len(got.slots)-1]
	}
	return newest, func() sideBySide {
		closeFn()
		<-done
		mu.Lock()
		defer mu.Unlock()
		return sideBySide{slots: slices.Clone(got.slots), ended: got.ended}
	}
}

// TestSideBySideWithSolanaGo runs solana-go's rpc/ws client (on endpoint
// a alone, as users open it) and solroute's SlotSubscribe (on a, b and
// c) against the same fake PubSub cluster on one fake clock, with the
// same fault on a (solana-go is served by a second PubSub of a's server:
// the same slot model and faults, its connection outside the settle that
// matches the engine's connections to the cluster's): an abrupt close, a stall (socket open, silent) or a lag
// of 20 slots, each from the 10th slot for 20 slots, then 10 healthy ones.
// It counts what each delivered of the 40 slots the cluster produced.
// solroute must miss none and deliver none twice; solana-go's figures are
// logged (plans/016, "Side by side"): it ends the subscription on the
// read error, goes silent through a stall (those slots are lost), and
// delivers a lagging node's slots late.
func TestSideBySideWithSolanaGo(t *testing.T) {
	faults := []struct {
		name  string
		start func(*fixtures.PubSub)
		end   func(*fixtures.PubSub)
	}{
		{"close", func(p *fixtures.PubSub) { p.Drop() }, func(*fixtures.PubSub) {}},
		{"stall", func(p *fixtures.PubSub) { p.SetFaults(fixtures.PubSubFaults{Stall: true}) }, func(p *fixtures.PubSub) { p.SetFaults(fixtures.PubSubFaults{}) }},
		{"lag", func(p *fixtures.PubSub) { p.SetFaults(fixtures.PubSubFaults{Lag: 20}) }, func(p *fixtures.PubSub) { p.SetFaults(fixtures.PubSubFaults{}) }},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			e := newSubEnv(t, []string{"a", "b", "c"}, nil)
			sub, err := e.client.SlotSubscribe(subCtx(t))
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Close()
			theirsPS := fixtures.NewPubSub(e.cluster.Server("a"), fixtures.PubSubOptions{})
			t.Cleanup(theirsPS.Close)
			newest, wait := solanaGoSlots(t, theirsPS.URL())
			both := func(do func(*fixtures.PubSub)) { do(e.cluster.PubSub("a")); do(theirsPS) }
			settle := func() {
				e.settle()
				if _, err := theirsPS.Settle(subCtx(t)); err != nil {
					t.Fatal(err)
				}
			}
			settle()
			b := e.cluster.Server("b")
			from := b.TipSlot("processed")
			var ours sideBySide
			behind := uint64(0) // how far solana-go's newest slot trailed the tip, at most (read after a settle: within a slot)
			for i := range 40 {
				switch i {
				case 10:
					both(f.start)
				case 30:
					both(f.end)
				}
				settle()
				e.clock.Advance(slotTime)
				settle()
				for _, n := range drainSub(sub) {
					ours.slots = append(ours.slots, n.Value.Slot)
				}
				if tip := b.TipSlot("processed"); i < 30 || f.name != "close" {
					behind = max(behind, tip-min(tip, newest()))
				}
			}
			to := b.TipSlot("processed")
			theirs := wait()
			d, m, r := ours.tally(from, to)
			sd, sm, sr := theirs.tally(from, to)
			st := sub.Counts()
			t.Logf("%s: the cluster produced %d slots; solroute delivered %d, missed %d, repeated %d (duplicates suppressed %d, failovers %d); "+
				"solana-go delivered %d, missed %d, repeated %d, its newest at most %d slots behind the tip, ended by: %v",
				f.name, to-from, d, m, r, st.Duplicates, st.Failovers, sd, sm, sr, behind, theirs.ended)
			if m != 0 || r != 0 || d != int(to-from) {
				t.Errorf("solroute delivered %d of %d slots, missed %d, repeated %d: want every slot once", d, to-from, m, r)
			}
		})
	}
}
