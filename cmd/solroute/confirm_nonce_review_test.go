package main

import (
	"bytes"
	"crypto/ed25519"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/durablenonce"
	"github.com/solroute/solroute/internal/fixturedata"
)

// putNonce puts seed's nonce account holding nonce on the chain and lets
// it finalize.
func (ch *chain) putNonce(seed uint64, nonce solana.Hash) solana.PublicKey {
	ch.t.Helper()
	acct := fixturedata.NonceAccount(seed)
	if _, _, err := ch.ledger.Apply(fixtures.Change{Accounts: map[string]*fixtures.AccountState{
		acct.String(): {Lamports: 1_447_680, Data: fixturedata.NonceAccountData(seed, nonce)}}}); err != nil {
		ch.t.Fatal(err)
	}
	ch.clock.Advance(time.Duration(fixturedata.DefaultLandAfter+fixturedata.FinalizedDepth+1) * fixturedata.DefaultSlotTime)
	return acct
}

// TestSendConfirmOfALandedNonceTransaction: 'send --confirm' of a
// durable-nonce transaction that already landed is refused by preflight
// with agave's "Blockhash not found", looks it up, and exits 0, landed.
// (Found by the first review: it exited 1, "nothing to confirm".)
func TestSendConfirmOfALandedNonceTransaction(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"}, chainNode{name: "b"})
	nonce := solana.Hash{0x61}
	ch.putNonce(61, nonce)
	tx, wire := ch.nonceTx(61, 1, nonce)
	ch.sendOnce(tx, wire, "--skip-preflight")
	ch.clock.Advance(time.Duration(fixturedata.DefaultLandAfter+fixturedata.ConfirmedDepth+1) * fixturedata.DefaultSlotTime)
	if truth := ch.ledger.Tx(tx.Signatures[0].String()); !truth.Landed {
		t.Fatalf("setup: %+v", truth)
	}
	r := ch.run(defaultResolveTimeout, 30, "send", "--config", ch.cfg, "--confirm", wire)
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %q; truth: landed", r.code, r.stderr)
	}
}

// TestConfirmNonceNeverSeenHeld: the transaction was dropped and another
// took its nonce before 'confirm' ran, so every witness line says the
// account holds another nonce, never seen held. The verdict says that no
// endpoint saw the nonce held, and never that the account holds it.
// (Found by the first review: it said "it may still land while its nonce
// account holds its nonce".)
func TestConfirmNonceNeverSeenHeld(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"}, chainNode{name: "b"})
	nonce := solana.Hash{0x62}
	acct := ch.putNonce(62, nonce)
	dropped, wire := ch.nonceTx(62, 1, nonce)
	sig := dropped.Signatures[0].String()
	ch.ledger.Drop(sig, math.MaxInt)
	ch.sendOnce(dropped, wire, "--skip-preflight")
	other, owire := ch.nonceTx(62, 2, nonce)
	ch.sendOnce(other, owire, "--skip-preflight")
	ch.clock.Advance(time.Duration(fixturedata.DefaultLandAfter+fixturedata.FinalizedDepth+1) * fixturedata.DefaultSlotTime)
	if truth := ch.ledger.Tx(sig); !truth.Expired {
		t.Fatalf("setup: %+v", truth)
	}
	r := ch.run(10*time.Second+time.Millisecond, 40, "confirm", "--config", ch.cfg, "--timeout", "10.001s", sig,
		"--nonce-account", acct.String(), "--nonce", nonce.String())
	r.wantCode(t, exitUnknown)
	if strings.Contains(r.stdout, "holds its nonce (advancing the nonce") || !strings.Contains(r.stdout, "never reported the transaction's held") ||
		!strings.Contains(r.stdout, "no endpoint has reported its nonce account "+acct.String()+" holding its nonce") {
		t.Fatalf("the verdict contradicts the witness lines, or does not say why none vouched:\n%s", r.stdout)
	}
}

// altNonceTx signs a v0 durable-nonce transaction on seed's nonce
// account, which its message loads from an address lookup table.
func altNonceTx(t *testing.T, seed uint64, nonce solana.Hash) (*solana.Transaction, string) {
	t.Helper()
	var s [ed25519.SeedSize]byte
	copy(s[:], "solroute-nonce")
	s[16], s[24] = byte(seed), 1
	auth := solana.PrivateKey(ed25519.NewKeyFromSeed(s[:]))
	acct := fixturedata.NonceAccount(seed)
	table := solana.PublicKeyFromBytes(bytes.Repeat([]byte{7}, 32))
	advance := system.NewAdvanceNonceAccountInstruction(acct, solana.SysVarRecentBlockHashesPubkey, auth.PublicKey()).Build()
	tx, err := solana.NewTransaction([]solana.Instruction{advance}, nonce, solana.TransactionPayer(auth.PublicKey()),
		solana.TransactionAddressTables(map[solana.PublicKey]solana.PublicKeySlice{table: {acct}}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Sign(func(k solana.PublicKey) *solana.PrivateKey {
		if k.Equals(auth.PublicKey()) {
			return &auth
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if a, _, ok := durablenonce.Of(tx); !ok || !a.IsZero() {
		t.Fatalf("setup: Of = %v %v", a, ok)
	}
	wire, err := fixtures.EncodeTransaction(tx)
	if err != nil {
		t.Fatal(err)
	}
	return tx, wire
}

// TestSendConfirmOfALookupTableNonceTransaction: for a durable-nonce
// transaction whose nonce account comes from a lookup table, 'send
// --confirm' (with or without a height) exits 2 before any request,
// saying why and which 'confirm' line to run; it never asks for a height
// or names a library field. (Found by the first review.)
func TestSendConfirmOfALookupTableNonceTransaction(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"})
	_, wire := altNonceTx(t, 63, solana.Hash{0x63})
	for _, args := range [][]string{{"--confirm", wire}, {"--confirm", "--last-valid-block-height", "1150", wire}} {
		r := ch.run(defaultResolveTimeout, 0, append([]string{"send", "--config", ch.cfg}, args...)...)
		r.wantCode(t, exitUsage)
		if !strings.Contains(r.stderr, "address lookup table") || !strings.Contains(r.stderr, "--nonce-account A --nonce "+solana.Hash{0x63}.String()) ||
			strings.Contains(r.stderr, "Options.NonceAccount") || strings.Contains(r.stderr, "needs --last-valid-block-height") {
			t.Errorf("%v: stderr %q", args, r.stderr)
		}
	}
	if n := ch.sends(); n != 0 {
		t.Fatalf("%d sends for a refused command", n)
	}
}

// TestConfirmZeroNonceAccount: --nonce-account 1111...1 (the zero key) is
// refused as an invalid flag, before any request. (Found by the first
// review: the library's "NonceAccount and Nonce go together" came after
// the pool was opened.)
func TestConfirmZeroNonceAccount(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"})
	r := ch.run(defaultResolveTimeout, 0, "confirm", "--config", ch.cfg, solana.Signature{1}.String(),
		"--nonce-account", solana.SystemProgramID.String(), "--nonce", solana.Hash{8}.String())
	r.wantCode(t, exitUsage)
	if !strings.Contains(r.stderr, "invalid --nonce-account") || len(ch.servers[0].Stats().Calls) != 0 {
		t.Errorf("stderr %q, requests %v: want the flag named as invalid, and no request", r.stderr, ch.servers[0].Stats().Calls)
	}
}
