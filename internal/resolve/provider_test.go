package resolve_test

import (
	"context"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/resolve"
)

// TestTwoURLsOfOneProviderAreOneWitness: two URLs of one provider whose
// shared backend reports a finalized height past lastValidBlockHeight
// (one node on a fork, behind both URLs) and does not know the
// signature. They are one witness: with the default quorum (2) the
// transaction is not called expired while the third endpoint's height is
// below lastValidBlockHeight, and the rebroadcast lands it. (Without
// Provider the two URLs were two vouches: expired after the first
// witness round, for a transaction that then landed.)
func TestTwoURLsOfOneProviderAreOneWitness(t *testing.T) {
	var lie atomic.Uint64
	forked := lies{"getEpochInfo": heightLie(&lie)}
	ch := newChain(t, node{name: "a"}, node{name: "p-staked", lie: forked, provider: "p"}, node{name: "p-public", lie: forked, provider: "p"})
	tx, lvbh := ch.tx(40, 0)
	lie.Store(lvbh + 1)
	sig := tx.Signatures[0].String()
	ch.ledger.Drop(sig, 3) // lost three times: only later rebroadcasts land it
	o := skip
	o.Rebroadcast = 2 * fixturedata.DefaultSlotTime
	seen := 0 // polls at which both of p's URLs had vouched
	o.OnPoll = func(r confirm.Result) {
		n := 0
		for _, w := range r.Witnesses {
			if w.Vouched && w.Provider == "p" {
				n++
			}
		}
		if n == 2 {
			seen++
			if r.Vouched != 1 {
				t.Errorf("poll %d: both of p's URLs vouched, Result.Vouched = %d, want 1", r.Polls, r.Vouched)
			}
		}
	}
	r, err := ch.drive(&o, 60, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch.tc, tx, lvbh, o)
	})
	if err != nil {
		t.Fatal(err)
	}
	if truth := ch.ledger.Tx(sig); r.Status != confirm.Landed || !truth.Landed {
		t.Fatalf("result %+v, truth %+v: want landed", r, truth)
	}
	if seen == 0 {
		t.Fatal("p's two URLs never both vouched: the test proves nothing")
	}
}

// TestQuorumCountsProviders: a pool whose three read endpoints are two
// providers cannot be asked for a quorum of 3, and its default quorum (2)
// is met by the two; the reason counts providers and names each
// endpoint's.
func TestQuorumCountsProviders(t *testing.T) {
	ch := newChain(t, node{name: "a", provider: "p"}, node{name: "b", provider: "p"}, node{name: "c"})
	tx, lvbh := ch.tx(41, 0)
	o := skip
	o.Quorum = 3
	done, cancel := context.WithCancel(context.Background())
	cancel() // bad input is refused before anything is asked; else this ends at once
	_, err := resolve.Resolve(done, ch.tc, tx.Signatures[0], lvbh, o)
	if err == nil || !strings.Contains(err.Error(), "exceeds the pool's 2 read endpoints, endpoints of one provider counted once (3 in all)") {
		t.Fatalf("quorum 3 over two providers: %v", err)
	}
	old, oldLVBH := ch.tx(42, 200) // its blockhash expired 50 blocks ago
	ch.ledger.Drop(old.Signatures[0].String(), math.MaxInt)
	o = skip
	r, err := ch.drive(&o, 20, func(o confirm.Options) (confirm.Result, error) {
		return resolve.Resolve(context.Background(), ch.tc, old.Signatures[0], oldLVBH, o)
	})
	if err != nil || r.Status != confirm.Expired || r.Quorum != 2 || r.Vouched != 2 {
		t.Fatalf("result %+v, error %v: want expired, quorum 2, 2 vouched", r, err)
	}
	for _, want := range []string{"2 providers vouched (2 needed)", "a of p vouched", "c vouched"} {
		if !strings.Contains(r.Reason, want) {
			t.Errorf("reason %q lacks %q", r.Reason, want)
		}
	}
}

// TestOneProviderPoolCountsItsURLs: a pool whose two read endpoints are
// URLs of one provider; one of them sits on a forked node that reports a
// finalized height past lastValidBlockHeight and lacks the signature, the
// other is honest. Naming the provider must not make expiry easier to
// conclude than leaving it out: the pool counts its URLs, the default
// quorum stays 2, and the honest URL keeps the transaction from being
// called expired. (Review of stop 36: with the provider counted once, the
// default quorum fell to 1 and the forked URL alone concluded expired.)
func TestOneProviderPoolCountsItsURLs(t *testing.T) {
	for _, provider := range []string{"", "p"} {
		t.Run("provider="+provider, func(t *testing.T) {
			var lie atomic.Uint64
			forked := lies{"getEpochInfo": heightLie(&lie)}
			ch := newChain(t, node{name: "p-forked", lie: forked, provider: provider}, node{name: "p-honest", provider: provider})
			tx, lvbh := ch.tx(40, 0)
			lie.Store(lvbh + 1)
			sig := tx.Signatures[0].String()
			ch.ledger.Drop(sig, 3) // lost three times: only later rebroadcasts land it
			o := skip
			o.Rebroadcast = 2 * fixturedata.DefaultSlotTime
			r, err := ch.drive(&o, 60, func(o confirm.Options) (confirm.Result, error) {
				return resolve.SendAndConfirm(context.Background(), ch.tc, tx, lvbh, o)
			})
			if err != nil {
				t.Fatal(err)
			}
			if truth := ch.ledger.Tx(sig); r.Status != confirm.Landed {
				t.Fatalf("status %v (quorum %d, vouched %d, reason %q), truth landed=%v: want landed", r.Status, r.Quorum, r.Vouched, r.Reason, truth.Landed)
			}
		})
	}
}
