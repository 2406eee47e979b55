package resolve_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/resolve"
)

// finalizedHeight is the finalized block height of an endpoint lag slots
// behind the chain's tip, now.
func (ch *chain) finalizedHeight(lag uint64) uint64 {
	_, h := ch.ledger.Tip()
	return h - lag - fixturedata.FinalizedDepth
}

// TestALaggingReaderStillLetsExpiryConclude: two readers, the second 1, 2
// or 4 slots behind (far inside the allowed lag): a transaction that can
// never land is expired within a few polls of the laggard's own finalized
// height passing lastValidBlockHeight (issue 20 item 1: it stayed unknown,
// the laggard's answers refused as stale by the resolver's session).
func TestALaggingReaderStillLetsExpiryConclude(t *testing.T) {
	for _, lag := range []uint64{1, 2, 4} {
		t.Run(fmt.Sprintf("lag %d", lag), func(t *testing.T) {
			ch := newChain(t, node{name: "a"}, node{name: "b", lag: lag})
			tx, lvbh := ch.tx(20+int(lag), 140)
			ch.ledger.Drop(tx.Signatures[0].String(), math.MaxInt)
			o := skip
			passed := 0 // the poll after which b's finalized height passed lvbh
			o.OnPoll = func(r confirm.Result) {
				if passed == 0 && ch.finalizedHeight(lag) > lvbh {
					passed = r.Polls
				}
			}
			r, err := ch.drive(&o, 80, func(o confirm.Options) (confirm.Result, error) {
				return resolve.SendAndConfirm(context.Background(), ch.tc, tx, lvbh, o)
			})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != confirm.Expired || r.BlockHeight <= lvbh {
				t.Fatalf("result %+v", r)
			}
			if passed == 0 && ch.finalizedHeight(lag) > lvbh {
				passed = r.Polls // at the verdict's own poll
			}
			if passed == 0 || r.Polls > passed+2 {
				t.Fatalf("expired at poll %d; the laggard's finalized height passed lastValidBlockHeight after poll %d", r.Polls, passed)
			}
		})
	}
}

// TestOneEndpointsHeightDoesNotConcludeExpiry: one of three endpoints
// answers getEpochInfo with a finalized height just past
// lastValidBlockHeight, at its true slot (issue 20 item 2: expired after 3
// polls, while the transaction could still land). It never makes it
// expired, nor stops the rebroadcast that lands it.
func TestOneEndpointsHeightDoesNotConcludeExpiry(t *testing.T) {
	var lie atomic.Uint64
	ch := newChain(t, node{name: "a"}, node{name: "b"}, node{name: "liar", lie: lies{"getEpochInfo": heightLie(&lie)}})
	tx, lvbh := ch.tx(30, 0)
	lie.Store(lvbh + 1)
	sig := tx.Signatures[0].String()
	ch.ledger.Drop(sig, 1) // the first send is lost: only a rebroadcast lands it
	o := skip
	o.Rebroadcast = 2 * fixturedata.DefaultSlotTime
	r, err := ch.drive(&o, 40, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch.tc, tx, lvbh, o)
	})
	if err != nil {
		t.Fatal(err)
	}
	if truth := ch.ledger.Tx(sig); r.Status != confirm.Landed || r.Rebroadcasts == 0 || !truth.Landed || r.Slot != truth.Slot {
		t.Fatalf("result %+v, truth %+v", r, truth)
	}

	// Without a rebroadcast it never lands: while a and b are below
	// lastValidBlockHeight it stays unknown, however often the liar
	// vouches.
	tx2, lvbh2 := ch.tx(31, 0)
	lie.Store(lvbh2 + 1)
	ch.ledger.Drop(tx2.Signatures[0].String(), math.MaxInt)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o2 := skip
	// a's height as the last poll read it: after the cancel the driver may
	// move the clock once more before the call returns.
	var lastHeight uint64
	o2.OnPoll = func(r confirm.Result) {
		lastHeight = ch.finalizedHeight(0)
		if r.Polls == 30 {
			cancel()
		}
	}
	r2, err := ch.drive(&o2, 40, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(ctx, ch.tc, tx2, lvbh2, o)
	})
	if err != nil || r2.Status != confirm.Unknown || r2.BlockHeight > lvbh2 {
		t.Fatalf("result %+v, error %v", r2, err)
	}
	// The reason names who vouched and why the others did not.
	for _, want := range []string{"expired needs 2 endpoints", "and 1 did", "liar vouched (finalized block height " + fmt.Sprint(lvbh2+1),
		fmt.Sprintf("a: finalized block height %d ≤ %d", lastHeight, lvbh2)} {
		if !strings.Contains(r2.Reason, want) {
			t.Errorf("reason %q lacks %q", r2.Reason, want)
		}
	}
}

// TestADeadReaderIsNoWitness: of two readers one is down from the start.
// With the default quorum (2, both configured readers) expiry cannot be
// vouched for: unknown when the context ends, not a hang past it (issue
// 20 item 3).
func TestADeadReaderIsNoWitness(t *testing.T) {
	ch := newChain(t, node{name: "good"}, node{name: "dead"})
	ch.c.Server("dead").SetDown(true)
	tx, lvbh := ch.tx(40, 140)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := confirm.Options{}
	o.OnPoll = func(confirm.Result) {
		if ch.finalizedHeight(0) > lvbh+5 {
			cancel()
		}
	}
	r, err := ch.drive(&o, 80, func(o confirm.Options) (confirm.Result, error) {
		return resolve.Resolve(ctx, ch.tc, tx.Signatures[0], lvbh, o)
	})
	if err != nil || r.Status != confirm.Unknown || r.Quorum != 2 || len(r.Witnesses) != 2 {
		t.Fatalf("result %+v, error %v", r, err)
	}
	good, dead := r.Witnesses[0], r.Witnesses[1]
	if !good.Vouched || good.BlockHeight <= lvbh || dead.Vouched || dead.BlockHeight != 0 ||
		!strings.Contains(dead.Reason, "unreachable: ") || !strings.Contains(r.Reason, "dead: unreachable: ") {
		t.Fatalf("witnesses %+v, reason %q", r.Witnesses, r.Reason)
	}
	// Its own height is no quorum's: BlockHeight stays 0, and the
	// rebroadcast it decides would go on.
	if r.BlockHeight != 0 {
		t.Fatalf("block height %d vouched by one endpoint of a quorum of 2", r.BlockHeight)
	}

	// Quorum 1 takes the good one's word.
	o = confirm.Options{Quorum: 1}
	r, err = ch.drive(&o, 80, func(o confirm.Options) (confirm.Result, error) {
		return resolve.Resolve(context.Background(), ch.tc, tx.Signatures[0], lvbh, o)
	})
	if err != nil || r.Status != confirm.Expired || r.BlockHeight <= lvbh || r.Polls > 2 ||
		!strings.Contains(r.Reason, "1 endpoint vouched (1 needed)") {
		t.Fatalf("quorum 1: result %+v, error %v", r, err)
	}
}

// TestAStatusOnAnyEndpointWinsOverALiarsNotFound: one endpoint answers
// "not found" to every status query while the other knows the status;
// the transaction landed in its last valid blocks, so the liar also sees
// its finalized height pass. It is landed, even with a quorum of 1, where
// the liar alone could vouch.
func TestAStatusOnAnyEndpointWinsOverALiarsNotFound(t *testing.T) {
	for _, quorum := range []int{0, 1} {
		t.Run(fmt.Sprintf("quorum %d", quorum), func(t *testing.T) {
			ch := newChain(t, node{name: "liar", lie: lies{"getSignatureStatuses": notFound}}, node{name: "b"})
			tx, lvbh := ch.tx(50+quorum, 147)
			if _, err := sendVia(ch, "b", tx); err != nil {
				t.Fatal(err)
			}
			sig := tx.Signatures[0].String()
			if !ch.ledger.Tx(sig).Landed {
				t.Fatal("setup: the send did not land")
			}
			o := confirm.Options{Commitment: rpc.CommitmentFinalized, Quorum: quorum}
			r, err := ch.drive(&o, 80, func(o confirm.Options) (confirm.Result, error) {
				return resolve.Resolve(context.Background(), ch.tc, tx.Signatures[0], lvbh, o)
			})
			if err != nil || r.Status != confirm.Landed || r.Slot != ch.ledger.Tx(sig).Slot {
				t.Fatalf("result %+v, error %v, truth %+v", r, err, ch.ledger.Tx(sig))
			}
		})
	}
}
