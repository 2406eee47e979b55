package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
)

func TestConfirmLanded(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"}, chainNode{name: "b"})
	tx, wire, lvbh := ch.tx(1, 0)
	sig := tx.Signatures[0].String()
	ch.sendOnce(tx, wire)

	r := ch.run(defaultResolveTimeout, 20, "confirm", "--config", ch.cfg, sig, "--last-valid-block-height", fmt.Sprint(lvbh))
	r.wantCode(t, exitOK)
	truth := ch.ledger.Tx(sig)
	wantLines(t, r.stdout,
		"signature       "+sig,
		"status          landed",
		fmt.Sprintf("slot            %d", truth.Slot),
		"confirmation    confirmed (waited for confirmed)",
		"landed: it succeeded on chain; do not send it again")
	// Until it showed, it was not expired: the finalized height was read.
	if !regexp.MustCompile(fmt.Sprintf(`(?m)^block height    (\d+ finalized|not yet read) on 2 endpoints; last valid %d$`, lvbh)).MatchString(r.stdout) ||
		!regexp.MustCompile(`(?m)^polls           [1-9]\d*$`).MatchString(r.stdout) {
		t.Errorf("no block height or polls line:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "\nrebroadcasts ") || strings.Contains(r.stdout, "\nsend ") || r.stderr != "" {
		t.Errorf("confirm reports a send, or wrote to stderr:\n%s\nstderr: %s", r.stdout, r.stderr)
	}
	// It sent nothing: the one send is "solroute send"'s.
	if n := ch.sends(); n != 1 || truth.Arrivals != 1 {
		t.Fatalf("%d sendTransaction requests, %d arrivals: want the one send", n, truth.Arrivals)
	}
}

func TestConfirmFailedOnChain(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"}, chainNode{name: "b"})
	tx, wire, lvbh := ch.tx(2, 0)
	sig := tx.Signatures[0].String()
	ch.ledger.Fail(sig, fixtures.Failure{Instruction: 0, Custom: 6001, PassPreflight: true})
	ch.sendOnce(tx, wire)

	r := ch.run(defaultResolveTimeout, 60, "confirm", "--config", ch.cfg, "--commitment", "finalized", "--json",
		sig, "--last-valid-block-height", fmt.Sprint(lvbh))
	r.wantCode(t, exitFailedOnChain)
	rep := decodeReport(t, r.stdout)
	truth := ch.ledger.Tx(sig)
	if rep.Status != "failed" || rep.Signature != sig || rep.Slot != truth.Slot || rep.Confirmation != "finalized" ||
		rep.Commitment != "finalized" || compact(t, rep.Err) != `{"InstructionError":[0,{"Custom":6001}]}` ||
		rep.LastValidBlockHeight != lvbh || rep.Polls == 0 || rep.Rebroadcasts != nil || rep.Stopped != "" {
		t.Fatalf("report %+v, truth %+v", rep, truth)
	}
	if !strings.HasPrefix(rep.Verdict, "failed: it landed with an on-chain error") {
		t.Errorf("verdict %q", rep.Verdict)
	}

	// The same, for people.
	r = ch.run(defaultResolveTimeout, 60, "confirm", "--config", ch.cfg, sig, "--last-valid-block-height", fmt.Sprint(lvbh))
	r.wantCode(t, exitFailedOnChain)
	wantLines(t, r.stdout,
		"status          failed (landed with an on-chain error)",
		`on-chain error  {"InstructionError":[0,{"Custom":6001}]}`)
}

func TestConfirmExpired(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"}, chainNode{name: "b"}, chainNode{name: "c"})
	tx, wire, lvbh := ch.tx(3, 140) // 10 blocks of validity left
	sig := tx.Signatures[0].String()
	ch.ledger.Drop(sig, math.MaxInt) // every send of it is lost
	ch.sendOnce(tx, wire)

	r := ch.run(defaultResolveTimeout, 200, "confirm", "--config", ch.cfg, "--json", sig, "--last-valid-block-height", fmt.Sprint(lvbh))
	r.wantCode(t, exitExpired)
	rep := decodeReport(t, r.stdout)
	if rep.Status != "expired" || rep.BlockHeight <= lvbh || rep.Slot != 0 || rep.Confirmation != "" || !ch.ledger.Tx(sig).Expired {
		t.Fatalf("report %+v, truth %+v", rep, ch.ledger.Tx(sig))
	}
	if want := fmt.Sprintf("expired: its blockhash is past block height %d and no endpoint knows it; "+
		"it can never land: sign it again with a new blockhash", lvbh); rep.Verdict != want {
		t.Errorf("verdict %q, want %q", rep.Verdict, want)
	}
	if vouched := countVouched(rep); rep.Quorum != 2 || vouched != 3 || !strings.HasPrefix(rep.Reason, "3 endpoints vouched (2 needed)") {
		t.Errorf("quorum %d, %d vouched, reason %q", rep.Quorum, vouched, rep.Reason)
	}
	if n := ch.sends(); n != 1 {
		t.Fatalf("%d sends: confirm sent something", n)
	}
}

// TestConfirmUnknownAtTimeout: a transaction nobody knows and whose
// blockhash is valid has no verdict: after --timeout (1 s on the fake
// clock: polls at 0, 400 and 800 ms) it is unknown, exit 6, and the
// report says how to go on.
func TestConfirmUnknownAtTimeout(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"})
	tx, wire, lvbh := ch.tx(4, 0)
	sig := tx.Signatures[0].String()
	ch.ledger.Drop(sig, math.MaxInt)
	ch.sendOnce(tx, wire)

	r := ch.run(time.Second, 10, "confirm", "--config", ch.cfg, "--timeout", "1s", sig, "--last-valid-block-height", fmt.Sprint(lvbh))
	r.wantCode(t, exitUnknown)
	wantLines(t, r.stdout,
		"status          unknown",
		"slot            -",
		"confirmation    not seen (waited for confirmed)",
		"polls           3",
		fmt.Sprintf("unknown: no verdict within --timeout 1s; it may still land until a finalized block height passes %d: "+
			"run 'solroute confirm --config %s %s --last-valid-block-height %d' before signing it again", lvbh, ch.cfg, sig, lvbh))
	if strings.Contains(r.stdout, "last error") {
		t.Errorf("the timeout is reported as a poll's error:\n%s", r.stdout)
	}

	r = ch.run(time.Second, 10, "confirm", "--config", ch.cfg, "--timeout", "1s", "--json", sig, "--last-valid-block-height", fmt.Sprint(lvbh))
	r.wantCode(t, exitUnknown)
	if rep := decodeReport(t, r.stdout); rep.Status != "unknown" || rep.Stopped != "timeout" || rep.Polls != 3 || rep.LastError != "" {
		t.Fatalf("report %+v", rep)
	}
}

// TestConfirmInterrupted: Ctrl-C ends the resolution as unknown, and says
// so.
func TestConfirmInterrupted(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"})
	tx, _, lvbh := ch.tx(5, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, clock: ch.clock, buildInfo: debug.ReadBuildInfo}
	code := e.dispatch(ctx, []string{"confirm", "--config", ch.cfg, tx.Signatures[0].String(), "--last-valid-block-height", fmt.Sprint(lvbh)})
	if code != exitUnknown {
		t.Fatalf("exit code %d, want %d\n%s%s", code, exitUnknown, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "\nunknown: interrupted before a verdict; ") {
		t.Errorf("report does not say it was interrupted:\n%s", out.String())
	}
}

func TestConfirmUsageErrors(t *testing.T) {
	s := startServer(t, fixtures.Options{})
	cfg := writeConfig(t, "", testEndpoint{name: "a", url: s.URL()})
	tx, err := fixtures.SignedTransaction(1, "")
	if err != nil {
		t.Fatal(err)
	}
	sig := tx.Signatures[0].String()
	zero := solana.Signature{}.String()
	tests := []usageCase{
		{"no signature", []string{"confirm", "--config", cfg, "--last-valid-block-height", "1150"}, "SIGNATURE is required"},
		{"not base58", []string{"confirm", "--config", cfg, "not-a-signature", "--last-valid-block-height", "1150"},
			`invalid SIGNATURE "not-a-signature": not a base-58 encoded 64-byte signature`},
		{"a public key", []string{"confirm", "--config", cfg, "Vote111111111111111111111111111111111111111", "--last-valid-block-height", "1150"},
			"invalid length, expected 64, got 32"},
		{"zero", []string{"confirm", "--config", cfg, zero, "--last-valid-block-height", "1150"}, "all zeros"},
		{"two signatures", []string{"confirm", "--config", cfg, sig, sig, "--last-valid-block-height", "1150"}, "too many arguments"},
		{"no last valid block height", []string{"confirm", "--config", cfg, sig},
			"--last-valid-block-height N is required: the lastValidBlockHeight getLatestBlockhash returned"},
		{"zero last valid block height", []string{"confirm", "--config", cfg, sig, "--last-valid-block-height", "0"},
			"--last-valid-block-height: 0 is no last valid block height"},
		{"negative last valid block height", []string{"confirm", "--config", cfg, sig, "--last-valid-block-height", "-5"},
			"--last-valid-block-height: -5 is negative: write a whole number, 0 or more"},
		{"bad commitment", []string{"confirm", "--config", cfg, sig, "--last-valid-block-height", "1150", "--commitment", "confirmd"},
			`invalid --commitment "confirmd": want processed, confirmed or finalized (did you mean "confirmed"?)`},
		{"far commitment", []string{"confirm", "--config", cfg, sig, "--last-valid-block-height", "1150", "--commitment", "max"},
			`invalid --commitment "max": want processed, confirmed or finalized (see`},
		{"zero timeout", []string{"confirm", "--config", cfg, sig, "--last-valid-block-height", "1150", "--timeout", "0s"},
			"--timeout must be positive"},
		{"negative quorum", []string{"confirm", "--config", cfg, sig, "--last-valid-block-height", "1150", "--quorum", "-1"},
			"--quorum must not be negative"},
		{"quorum above the readers", []string{"confirm", "--config", cfg, sig, "--last-valid-block-height", "1150", "--quorum", "2"},
			"--quorum 2 exceeds the 1 read endpoints in " + cfg + " (a provider's counted once): expired could never be concluded"},
		{"no config", []string{"confirm", sig, "--last-valid-block-height", "1150"}, "--config FILE is required"},
	}
	runUsageCases(t, tests)
	if n := s.Stats().Requests; n != 0 {
		t.Fatalf("a usage error sent %d requests", n)
	}
}

// TestConfirmWithoutAReadEndpointIsAConfigError: confirm reads; a
// configuration with send endpoints only cannot, and is told so before any
// request.
func TestConfirmWithoutAReadEndpointIsAConfigError(t *testing.T) {
	s := startServer(t, fixtures.Options{})
	cfg := writeConfig(t, "", testEndpoint{name: "sender", url: s.URL(), roles: "send"})
	tx, err := fixtures.SignedTransaction(1, "")
	if err != nil {
		t.Fatal(err)
	}
	r := runCmd(t, "confirm", "--config", cfg, tx.Signatures[0].String(), "--last-valid-block-height", "1150")
	r.wantCode(t, exitUsage)
	want := "solroute confirm: configuration error: getSignatureStatuses needs an endpoint that serves role read, and none in " +
		cfg + " does (give one an [endpoints.roles.read] table)"
	if got := lines(r.stderr); len(got) != 1 || got[0] != want {
		t.Fatalf("stderr %q, want the one line %q", r.stderr, want)
	}
	if n := s.Stats().Requests; n != 0 {
		t.Fatalf("the server received %d requests", n)
	}
}

// countVouched counts the witnesses of a report that vouched.
func countVouched(rep resolutionReport) int {
	n := 0
	for _, w := range rep.Witnesses {
		if w.Vouched {
			n++
		}
	}
	return n
}

// TestConfirmExpiredWithALaggingReader: the second of two readers is 1,
// 2 or 4 slots behind: the transaction that never lands is expired within
// two polls of the laggard's own finalized height passing the last valid
// one (issue 20 item 1: it was unknown at --timeout in most runs).
func TestConfirmExpiredWithALaggingReader(t *testing.T) {
	for _, lag := range []uint64{1, 2, 4} {
		t.Run(fmt.Sprintf("lag %d", lag), func(t *testing.T) {
			ch := newChain(t, chainNode{name: "a"}, chainNode{name: "b", lag: lag})
			tx, wire, lvbh := ch.tx(10+lag, 140)
			sig := tx.Signatures[0].String()
			ch.ledger.Drop(sig, math.MaxInt)
			ch.sendOnce(tx, wire)
			// b's finalized height passes lvbh at the poll made after
			// passed slots.
			_, tip := ch.ledger.Tip()
			passed := int(lvbh+1+lag+fixturedata.FinalizedDepth-tip) + 1
			r := ch.run(defaultResolveTimeout, passed+2, "confirm", "--config", ch.cfg, "--json", sig, "--last-valid-block-height", fmt.Sprint(lvbh))
			r.wantCode(t, exitExpired)
			if rep := decodeReport(t, r.stdout); rep.Status != "expired" || rep.BlockHeight <= lvbh || rep.Polls > passed+2 {
				t.Fatalf("report %+v: want expired by poll %d", rep, passed+2)
			}
		})
	}
}

// TestConfirmUnknownNeverContradictsItself: b is 10 slots behind a; the
// resolution times out after a's finalized height passed the last valid
// one and before b's did. The report says so: the block height a quorum
// reached (b's, below the last valid one), a witness line each, and a
// verdict that does not claim the chain is below the last valid height
// (issue 20 item 1: "it may still land until a finalized block height
// passes N" next to a height above N).
func TestConfirmUnknownNeverContradictsItself(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"}, chainNode{name: "b", lag: 10})
	tx, wire, lvbh := ch.tx(20, 140)
	sig := tx.Signatures[0].String()
	ch.ledger.Drop(sig, math.MaxInt)
	ch.sendOnce(tx, wire)
	_, tip := ch.ledger.Tip()
	aPassed := time.Duration(lvbh+1+fixturedata.FinalizedDepth-tip) * fixturedata.DefaultSlotTime // a's passing, on the clock
	timeout := aPassed + 4*fixturedata.DefaultSlotTime + fixturedata.DefaultSlotTime/4
	r := ch.run(timeout, 100, "confirm", "--config", ch.cfg, "--timeout", timeout.String(), sig, "--last-valid-block-height", fmt.Sprint(lvbh))
	r.wantCode(t, exitUnknown)
	height := regexp.MustCompile(`(?m)^block height    (\d+) finalized on 2 endpoints; last valid (\d+)$`).FindStringSubmatch(r.stdout)
	if height == nil || height[2] != fmt.Sprint(lvbh) {
		t.Fatalf("no block height line:\n%s", r.stdout)
	}
	if h, _ := strconv.ParseUint(height[1], 10, 64); h > lvbh {
		t.Fatalf("block height %d past %d, and unknown:\n%s", h, lvbh, r.stdout)
	}
	wantLines(t, r.stdout, fmt.Sprintf("unknown: no verdict within --timeout %v; an endpoint reported a finalized block height past %d, "+
		"but expired needs 2 endpoints to vouch for it and 1 did (see the witness lines): until 2 do, it may have landed: "+
		"run 'solroute confirm --config %s %s --last-valid-block-height %d' before signing it again", timeout, lvbh, ch.cfg, sig, lvbh))
	if !regexp.MustCompile(`(?m)^witness         a vouched \(finalized block height \d+, not found at slot \d+\)$`).MatchString(r.stdout) ||
		!regexp.MustCompile(fmt.Sprintf(`(?m)^witness         b: finalized block height \d+ ≤ %d$`, lvbh)).MatchString(r.stdout) {
		t.Errorf("no witness lines:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "it may still land until") {
		t.Errorf("the verdict says the chain is below %d:\n%s", lvbh, r.stdout)
	}
}
