package resolve_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/durablenonce"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/resolve"
)

// putNonce lands seed's nonce account holding nonce and advances the
// clock until the finalized banks hold it too.
func (ch *chain) putNonce(seed uint64, nonce solana.Hash) solana.PublicKey {
	ch.t.Helper()
	acct := fixturedata.NonceAccount(seed)
	if _, _, err := ch.ledger.Apply(fixtures.Change{Accounts: map[string]*fixtures.AccountState{
		acct.String(): {Lamports: 1_447_680, Data: fixturedata.NonceAccountData(seed, nonce)}}}); err != nil {
		ch.t.Fatal(err)
	}
	ch.clock.Advance(slotsOf(fixturedata.DefaultLandAfter + fixturedata.FinalizedDepth + 1))
	return acct
}

// nonceTx is fixturedata.NonceTransaction, failing the test on an error.
func (ch *chain) nonceTx(seed, n uint64, nonce solana.Hash) *solana.Transaction {
	ch.t.Helper()
	tx, err := fixturedata.NonceTransaction(seed, n, nonce)
	if err != nil {
		ch.t.Fatal(err)
	}
	return tx
}

// nonceNow is the nonce the account holds at the tip.
func (ch *chain) nonceNow(acct solana.PublicKey) solana.Hash {
	ch.t.Helper()
	tip, _ := ch.ledger.Tip()
	st, ok := ch.ledger.Account(acct.String(), tip)
	s, isNonce := durablenonce.Decode(solana.SystemProgramID, st.Data)
	if !ok || !isNonce {
		ch.t.Fatalf("no nonce account %s at the tip", acct)
	}
	return s.Nonce
}

// TestDurableNonceLands: SendAndConfirm tells a durable-nonce transaction
// from the transaction itself, takes lastValidBlockHeight 0 for it, and
// resolves its landing as any other's.
func TestDurableNonceLands(t *testing.T) {
	ch := newChain(t, node{name: "a"}, node{name: "b"})
	nonce := solana.Hash{1, 1}
	acct := ch.putNonce(1, nonce)
	tx := ch.nonceTx(1, 1, nonce)
	o := skip
	r, err := ch.drive(&o, 20, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch.tc, tx, 0, o)
	})
	if err != nil {
		t.Fatal(err)
	}
	truth := ch.ledger.Tx(tx.Signatures[0].String())
	if r.Status != confirm.Landed || r.Slot != truth.Slot || !r.NonceAccount.Equals(acct) || r.Nonce != nonce || r.LastValidBlockHeight != 0 {
		t.Fatalf("result %+v, truth %+v", r, truth)
	}
	if ch.nonceNow(acct) == nonce {
		t.Fatal("the nonce did not move on when the transaction landed")
	}
}

// TestDurableNonceExpiresOnlyOnceTheNonceMovedOn: a dropped durable-nonce
// transaction stays unknown while its nonce is held, for far more than a
// blockhash's 150 blocks, and is expired once another transaction on the
// same nonce landed and two endpoints' finalized banks hold the new one.
func TestDurableNonceExpiresOnlyOnceTheNonceMovedOn(t *testing.T) {
	ch := newChain(t, node{name: "a"}, node{name: "b"}, node{name: "c"})
	nonce := solana.Hash{2, 2}
	ch.putNonce(2, nonce)
	tx, other := ch.nonceTx(2, 1, nonce), ch.nonceTx(2, 2, nonce)
	sig := tx.Signatures[0].String()
	ch.ledger.Drop(sig, math.MaxInt) // it never lands
	const moveAt = 200               // polls: 200 slots, past any blockhash's 150 blocks
	var heldReason string
	var movedSlot uint64
	o := skip
	o.OnPoll = func(r confirm.Result) {
		if r.Polls != moveAt {
			return
		}
		heldReason = r.Reason
		if _, err := sendVia(ch, "b", other); err != nil {
			t.Errorf("the second transaction on the nonce: %v", err)
		}
		movedSlot = ch.ledger.Tx(other.Signatures[0].String()).Slot
	}
	r, err := ch.drive(&o, moveAt+60, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch.tc, tx, 0, o)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(heldReason, "nonce still held at finalized slot") || !strings.Contains(heldReason, "and 0 did") {
		t.Errorf("reason while the nonce was held: %q", heldReason)
	}
	truth := ch.ledger.Tx(sig)
	if r.Status != confirm.Expired || !truth.Expired || truth.Landed {
		t.Fatalf("result %+v, truth %+v", r, truth)
	}
	// No finalized bank held the new nonce before movedSlot + 32.
	t.Logf("expired at poll %d, %d polls after the nonce moved", r.Polls, r.Polls-moveAt)
	if r.Polls <= moveAt+int(fixturedata.FinalizedDepth) {
		t.Errorf("expired at poll %d: the nonce moved at poll %d and finalizes %d slots later", r.Polls, moveAt, fixturedata.FinalizedDepth)
	}
	vouched := 0
	for _, w := range r.Witnesses {
		if w.Vouched {
			vouched++
			if w.NonceHeldAt == 0 || w.NonceMovedAt < movedSlot || w.StatusSlot < w.NonceMovedAt || w.BlockHeight != 0 {
				t.Errorf("witness %+v: moved at %d", w, movedSlot)
			}
		}
	}
	if vouched < 2 || !strings.Contains(r.Reason, "moved on from the transaction's nonce") || !strings.Contains(r.Reason, "nonce held at finalized slot") {
		t.Fatalf("%d vouched; reason %q", vouched, r.Reason)
	}
	if r.Rebroadcasts != 0 || ch.sends() != 2 {
		t.Errorf("%d rebroadcasts, %d sends", r.Rebroadcasts, ch.sends())
	}
}

// TestANonceNotYetFinalizedIsNotExpiry: the transaction is signed on a
// nonce that another transaction has just set, so for 34 slots every
// finalized bank still holds the one before. Even at Quorum 1 that is no
// expiry (it looks like a nonce that moved on, but was never seen held):
// the transaction lands once a rebroadcast gets through.
func TestANonceNotYetFinalizedIsNotExpiry(t *testing.T) {
	ch := newChain(t, node{name: "a"}, node{name: "b"})
	acct := ch.putNonce(3, solana.Hash{3, 3})
	if _, err := sendVia(ch, "a", ch.nonceTx(3, 0, solana.Hash{3, 3})); err != nil {
		t.Fatal(err)
	}
	ch.clock.Advance(slotsOf(fixturedata.DefaultLandAfter))
	nonce := ch.nonceNow(acct)
	tx := ch.nonceTx(3, 1, nonce)
	sig := tx.Signatures[0].String()
	ch.ledger.Drop(sig, 3) // the send and two rebroadcasts are lost
	o := skip
	o.Quorum = 1
	o.Rebroadcast = slotsOf(10)
	r, err := ch.drive(&o, 80, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch.tc, tx, 0, o)
	})
	if err != nil {
		t.Fatal(err)
	}
	if truth := ch.ledger.Tx(sig); r.Status != confirm.Landed || !truth.Landed || r.Rebroadcasts != 3 {
		t.Fatalf("result %+v, truth %+v", r, truth)
	}
}

// nonceLie is a getAccountInfo result whose nonce account holds another
// nonce once on is set.
func nonceLie(on *atomic.Bool) func(json.RawMessage) json.RawMessage {
	return func(result json.RawMessage) json.RawMessage {
		if !on.Load() {
			return nil
		}
		var r map[string]any
		if json.Unmarshal(result, &r) != nil {
			return nil
		}
		v, ok := r["value"].(map[string]any)
		if !ok {
			return nil
		}
		v["data"] = []string{base64.StdEncoding.EncodeToString(durablenonce.Encode(durablenonce.State{Nonce: solana.Hash{9}})), "base64"}
		b, _ := json.Marshal(r)
		return b
	}
}

// TestOneEndpointsNonceDoesNotConcludeExpiry: a liar that says the nonce
// moved on after it held it, and knows no signature, is one witness: at
// the default quorum the transaction stays unknown while an honest
// endpoint sees the nonce held. At Quorum 1 its word is taken, as
// Options.Quorum warns.
func TestOneEndpointsNonceDoesNotConcludeExpiry(t *testing.T) {
	for _, quorum := range []int{0, 1} {
		var lying atomic.Bool
		ch := newChain(t, node{name: "a"}, node{name: "liar", lie: lies{"getAccountInfo": nonceLie(&lying), "getSignatureStatuses": notFound}})
		nonce := solana.Hash{4, 4}
		ch.putNonce(4, nonce)
		tx := ch.nonceTx(4, 1, nonce)
		ch.ledger.Drop(tx.Signatures[0].String(), math.MaxInt)
		ctx, cancel := context.WithCancel(context.Background())
		o := skip
		o.Quorum = quorum
		o.OnPoll = func(r confirm.Result) {
			switch r.Polls {
			case 5:
				lying.Store(true)
			case 40:
				cancel()
			}
		}
		r, err := ch.drive(&o, 60, func(o confirm.Options) (confirm.Result, error) {
			return resolve.SendAndConfirm(ctx, ch.tc, tx, 0, o)
		})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if quorum == 1 {
			if r.Status != confirm.Expired || !strings.Contains(r.Reason, "liar vouched") {
				t.Fatalf("quorum 1: result %+v: the liar's lie did not take", r)
			}
			continue
		}
		if r.Status != confirm.Unknown || !strings.Contains(r.Reason, "and 1 did") || !strings.Contains(r.Reason, "liar vouched") ||
			!strings.Contains(r.Reason, "a: nonce still held at finalized slot") {
			t.Fatalf("result %+v", r)
		}
	}
}

// TestDurableNonceBadInputSendsNothing: the nonce fields and
// lastValidBlockHeight must agree with each other and with the
// transaction, before any request.
func TestDurableNonceBadInputSendsNothing(t *testing.T) {
	ch := newChain(t, node{name: "a"})
	nonce := solana.Hash{5}
	ntx := ch.nonceTx(5, 1, nonce)
	tx, lvbh := ch.tx(12, 0)
	acct := fixturedata.NonceAccount(5)
	// Ended already: an input let through resolves at once, to Unknown.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, c := range map[string]struct {
		call func() error
		want string
	}{
		"account alone": {func() error {
			_, err := resolve.Resolve(ctx, ch.tc, ntx.Signatures[0], 0, confirm.Options{NonceAccount: acct})
			return err
		}, "go together"},
		"nonce and a height": {func() error {
			_, err := resolve.Resolve(ctx, ch.tc, ntx.Signatures[0], 5, confirm.Options{NonceAccount: acct, Nonce: nonce})
			return err
		}, "pass 0"},
		"a nonce transaction and a height": {func() error {
			_, err := resolve.SendAndConfirm(ctx, ch.tc, ntx, 5, confirm.Options{})
			return err
		}, "pass 0"},
		"another nonce": {func() error {
			_, err := resolve.SendAndConfirm(ctx, ch.tc, ntx, 0, confirm.Options{Nonce: solana.Hash{6}})
			return err
		}, "carries the nonce"},
		"another account": {func() error {
			_, err := resolve.SendAndConfirm(ctx, ch.tc, ntx, 0, confirm.Options{NonceAccount: fixturedata.NonceAccount(6)})
			return err
		}, "advances the nonce account"},
		"nonce fields for a blockhash transaction": {func() error {
			_, err := resolve.SendAndConfirm(ctx, ch.tc, tx, lvbh, confirm.Options{NonceAccount: acct, Nonce: nonce})
			return err
		}, "not a durable-nonce transaction"},
		"zero height without a nonce": {func() error {
			_, err := resolve.Resolve(ctx, ch.tc, tx.Signatures[0], 0, confirm.Options{})
			return err
		}, "Options.NonceAccount and Options.Nonce"},
	} {
		if err := c.call(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", name, err, c.want)
		}
	}
	if n := len(ch.c.Server("a").Requests()); n != 0 {
		t.Fatalf("%d requests sent for bad input", n)
	}
}

// slotsOf is n slots of the fake chain's time.
func slotsOf(n uint64) time.Duration { return time.Duration(n) * fixturedata.DefaultSlotTime }
