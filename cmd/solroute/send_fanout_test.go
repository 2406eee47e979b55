package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/solroute/solroute/fixtures"
)

// TestSendFanOut: --fan-out 3 sends the same bytes to the three send
// endpoints, prints the signature and one line per endpoint (the one
// answering 429 refused, nothing sent there); with --confirm it lands;
// --fan-out above the send endpoints, or below 1, exits 2 before any
// request.
func TestSendFanOut(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"}, chainNode{name: "b"}, chainNode{name: "c", sendFault: fixtures.Status(429, "")})
	tx, wire, _ := ch.tx(40, 0)
	sig := tx.Signatures[0].String()
	r := ch.run(defaultResolveTimeout, 0, "send", "--config", ch.cfg, "--fan-out", "3", "--skip-preflight", wire)
	r.wantCode(t, exitOK)
	got := lines(r.stdout)
	if len(got) != 4 || got[0] != sig || !strings.Contains(r.stdout, "copy  a  accepted\n") || !strings.Contains(r.stdout, "copy  b  accepted\n") ||
		!strings.Contains(r.stdout, "copy  c  refused: ") {
		t.Fatalf("stdout %q", r.stdout)
	}
	if n := ch.sends(); n != 3 {
		t.Fatalf("%d sends, want 3", n)
	}
	for _, bad := range []string{"4", "0"} {
		tx2, wire2, _ := ch.tx(41, 0)
		r := ch.run(defaultResolveTimeout, 0, "send", "--config", ch.cfg, "--fan-out", bad, wire2)
		r.wantCode(t, exitUsage)
		if truth := ch.ledger.Tx(tx2.Signatures[0].String()); truth.Arrivals != 0 || ch.sends() != 3 {
			t.Fatalf("--fan-out %s: %+v, %d sends", bad, truth, ch.sends())
		}
		if !strings.Contains(r.stderr, "--fan-out") {
			t.Errorf("--fan-out %s: stderr %q", bad, r.stderr)
		}
	}
	tx3, wire3, lvbh3 := ch.tx(42, 0)
	r = ch.run(defaultResolveTimeout, 20, "send", "--config", ch.cfg, "--fan-out", "2", "--skip-preflight", "--confirm",
		"--last-valid-block-height", fmt.Sprint(lvbh3), wire3)
	r.wantCode(t, exitOK)
	if truth := ch.ledger.Tx(tx3.Signatures[0].String()); !truth.Landed || truth.Arrivals != 2 {
		t.Fatalf("--confirm --fan-out 2: %+v", truth)
	}
}
