package main

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/durablenonce"
	"github.com/solroute/solroute/internal/fixturedata"
)

// nonceTx signs transaction n on seed's nonce account holding nonce, and
// returns it with its base64 wire bytes.
func (ch *chain) nonceTx(seed, n uint64, nonce solana.Hash) (*solana.Transaction, string) {
	ch.t.Helper()
	tx, err := fixturedata.NonceTransaction(seed, n, nonce)
	if err != nil {
		ch.t.Fatal(err)
	}
	wire, err := fixtures.EncodeTransaction(tx)
	if err != nil {
		ch.t.Fatal(err)
	}
	return tx, wire
}

// nonceNow is the nonce acct holds at the tip.
func (ch *chain) nonceNow(acct solana.PublicKey) solana.Hash {
	ch.t.Helper()
	tip, _ := ch.ledger.Tip()
	st, _ := ch.ledger.Account(acct.String(), tip)
	s, ok := durablenonce.Decode(solana.SystemProgramID, st.Data)
	if !ok {
		ch.t.Fatalf("no nonce account %s at the tip", acct)
	}
	return s.Nonce
}

// TestConfirmDurableNonce: 'send --confirm' tells a durable-nonce
// transaction from its bytes and needs no --last-valid-block-height;
// 'confirm' takes --nonce-account and --nonce, says unknown while the
// nonce is held, and expired once it moved on without the transaction.
func TestConfirmDurableNonce(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"}, chainNode{name: "b"}, chainNode{name: "c"})
	acct := fixturedata.NonceAccount(7)
	if _, _, err := ch.ledger.Apply(fixtures.Change{Accounts: map[string]*fixtures.AccountState{
		acct.String(): {Lamports: 1_447_680, Data: fixturedata.NonceAccountData(7, solana.Hash{7})}}}); err != nil {
		t.Fatal(err)
	}
	ch.clock.Advance(time.Duration(fixturedata.DefaultLandAfter+fixturedata.FinalizedDepth+1) * fixturedata.DefaultSlotTime)

	// It lands, and its report names the nonce.
	first, wire := ch.nonceTx(7, 1, solana.Hash{7})
	r := ch.run(defaultResolveTimeout, 30, "send", "--config", ch.cfg, "--confirm", "--json", wire)
	r.wantCode(t, exitOK)
	rep := decodeReport(t, r.stdout)
	if rep.Status != "landed" || rep.NonceAccount != acct.String() || rep.Nonce != (solana.Hash{7}).String() || rep.LastValidBlockHeight != 0 {
		t.Fatalf("report %+v", rep)
	}
	if truth := ch.ledger.Tx(first.Signatures[0].String()); !truth.Landed {
		t.Fatalf("truth %+v", truth)
	}

	// A height for it is refused before any request.
	nonce := ch.nonceNow(acct)
	dropped, wire := ch.nonceTx(7, 2, nonce)
	sig := dropped.Signatures[0].String()
	before := ch.sends()
	r = ch.run(defaultResolveTimeout, 0, "send", "--config", ch.cfg, "--confirm", "--last-valid-block-height", "1150", wire)
	r.wantCode(t, exitUsage)
	if !strings.Contains(r.stderr, "durable-nonce transaction") || !strings.Contains(r.stderr, "drop --last-valid-block-height") || ch.sends() != before {
		t.Fatalf("stderr %q, %d sends", r.stderr, ch.sends()-before)
	}

	// Sent and lost: unknown while the nonce is held.
	ch.ledger.Drop(sig, math.MaxInt)
	ch.sendOnce(dropped, wire)
	ch.clock.Advance(time.Duration(fixturedata.FinalizedDepth+fixturedata.DefaultLandAfter+1) * fixturedata.DefaultSlotTime) // the nonce finalizes
	flags := []string{"--nonce-account", acct.String(), "--nonce", nonce.String()}
	r = ch.run(10*time.Second+time.Millisecond, 40, append([]string{"confirm", "--config", ch.cfg, "--timeout", "10.001s", sig}, flags...)...)
	r.wantCode(t, exitUnknown)
	wantLines(t, r.stdout, "nonce           "+nonce.String()+" of account "+acct.String()+"; expired once 2 endpoints see it move on (finalized)")
	for _, want := range []string{"a: nonce still held at finalized slot", "it may still land while its nonce account " + acct.String() + " holds its nonce",
		"run 'solroute confirm --config " + ch.cfg + " " + sig + " --nonce-account " + acct.String() + " --nonce " + nonce.String() + "'"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("unknown report lacks %q:\n%s", want, r.stdout)
		}
	}

	// Another transaction on the nonce lands: the lost one expires.
	_, wire = ch.nonceTx(7, 3, nonce)
	ch.run(defaultResolveTimeout, 30, "send", "--config", ch.cfg, "--confirm", wire).wantCode(t, exitOK)
	r = ch.run(defaultResolveTimeout, 80, append([]string{"confirm", "--config", ch.cfg, sig}, flags...)...)
	r.wantCode(t, exitExpired)
	if truth := ch.ledger.Tx(sig); !truth.Expired || !strings.Contains(r.stdout, "expired: its nonce account "+acct.String()+" moved on") ||
		!strings.Contains(r.stdout, "vouched (nonce held at finalized slot") {
		t.Fatalf("truth %+v\n%s", truth, r.stdout)
	}
}

// TestConfirmNonceFlagsUsage: the nonce flags go together, exclude a
// height, and must parse; each mistake exits 2 before any request.
func TestConfirmNonceFlagsUsage(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"})
	sig := solana.Signature{1}.String()
	acct, nonce := fixturedata.NonceAccount(8).String(), solana.Hash{8}.String()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--nonce-account", acct}, "--nonce-account and --nonce go together"},
		{[]string{"--nonce", nonce}, "--nonce-account and --nonce go together"},
		{[]string{"--nonce-account", acct, "--nonce", nonce, "--last-valid-block-height", "5"}, "contradict each other"},
		{[]string{"--nonce-account", "not-a-key", "--nonce", nonce}, "invalid --nonce-account"},
		{[]string{"--nonce-account", acct, "--nonce", "0"}, "invalid --nonce"},
		{nil, "or, for a durable-nonce transaction, --nonce-account A --nonce N"},
	} {
		r := ch.run(defaultResolveTimeout, 0, append([]string{"confirm", "--config", ch.cfg, sig}, c.args...)...)
		r.wantCode(t, exitUsage)
		if !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: stderr %q lacks %q", c.args, r.stderr, c.want)
		}
	}
	if n := ch.servers[0].Stats().Calls; len(n) != 0 {
		t.Fatalf("requests for bad flags: %v", n)
	}
}
