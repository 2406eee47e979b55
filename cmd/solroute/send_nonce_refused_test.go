package main

import (
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
)

// TestSendConfirmOfANonceTransactionRefusedByPreflight: a durable-nonce
// transaction signed on a nonce its account does not hold is refused by
// preflight with "Blockhash not found": nothing was forwarded. 'send
// --confirm' exits 1 with the refusal, as plain 'send' does and as
// docs/cli.md says of any refused preflight. (Found by the second review:
// it polled its whole --timeout and exited 6.)
func TestSendConfirmOfANonceTransactionRefusedByPreflight(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"}, chainNode{name: "b"})
	ch.putNonce(64, solana.Hash{0x64})
	tx, wire := ch.nonceTx(64, 1, solana.Hash{0xee}) // never held
	plain := ch.run(defaultResolveTimeout, 0, "send", "--config", ch.cfg, wire)
	plain.wantCode(t, 1)
	r := ch.run(10*time.Second+time.Millisecond, 40, "send", "--config", ch.cfg, "--timeout", "10.001s", "--confirm", wire)
	if r.code != 1 || !strings.Contains(r.stderr, "Blockhash not found") {
		t.Fatalf("send --confirm: exit %d (plain send: exit %d, %q); stderr %q; stdout:\n%s; ledger: %+v",
			r.code, plain.code, strings.TrimSpace(plain.stderr), r.stderr, r.stdout, ch.ledger.Tx(tx.Signatures[0].String()))
	}
}

// TestSendLookupNonceTransactionWithHeightNamesNoZeroAccount: a
// durable-nonce transaction whose nonce account comes from a lookup
// table, sent with --last-valid-block-height, is refused (exit 2) without
// naming the zero key as its account. (Found by the second review.)
func TestSendLookupNonceTransactionWithHeightNamesNoZeroAccount(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"})
	_, wire := altNonceTx(t, 65, solana.Hash{0x65})
	r := ch.run(defaultResolveTimeout, 0, "send", "--config", ch.cfg, "--last-valid-block-height", "1150", wire)
	r.wantCode(t, exitUsage)
	if strings.Contains(r.stderr, solana.SystemProgramID.String()) {
		t.Fatalf("stderr names the zero key as the nonce account: %q", r.stderr)
	}
}
