package resolve_test

import (
	"context"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/resolve"
)

// forkedBackend is a chain over nodes, given the lie of a backend on a
// fork (a finalized height past lastValidBlockHeight, without the
// signature), and a transaction lost three times, so that only a later
// rebroadcast lands it, with options that rebroadcast it.
func forkedBackend(t *testing.T, nodes func(forked lies) []node) (*chain, *solana.Transaction, uint64, confirm.Options) {
	t.Helper()
	var lie atomic.Uint64
	ch := newChain(t, nodes(lies{"getEpochInfo": heightLie(&lie)})...)
	tx, lvbh := ch.tx(40, 0)
	lie.Store(lvbh + 1)
	ch.ledger.Drop(tx.Signatures[0].String(), 3)
	o := skip
	o.Rebroadcast = 2 * fixturedata.DefaultSlotTime
	return ch, tx, lvbh, o
}

// TestTwoURLsOfOneProviderAreOneWitness: two URLs of one provider whose
// shared backend reports a finalized height past lastValidBlockHeight
// (one node on a fork, behind both URLs) and does not know the
// signature. They are one witness: with the default quorum (2) the
// transaction is not called expired while the third endpoint's height is
// below lastValidBlockHeight, and the rebroadcast lands it. (Without
// Provider the two URLs were two vouches: expired after the first
// witness round, for a transaction that then landed.)
func TestTwoURLsOfOneProviderAreOneWitness(t *testing.T) {
	ch, tx, lvbh, o := forkedBackend(t, func(forked lies) []node {
		return []node{{name: "a"}, {name: "p-staked", lie: forked, provider: "p"}, {name: "p-public", lie: forked, provider: "p"}}
	})
	sig := tx.Signatures[0].String()
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
			ch, tx, lvbh, o := forkedBackend(t, func(forked lies) []node {
				return []node{{name: "p-forked", lie: forked, provider: provider}, {name: "p-honest", provider: provider}}
			})
			sig := tx.Signatures[0].String()
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
