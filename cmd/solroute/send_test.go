package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/mr-tron/base58"
	"github.com/solroute/solroute/fixtures"
)

func TestSendPrintsTheSignature(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"}, chainNode{name: "b"})
	tx, wire, _ := ch.tx(1, 0)
	ch.sendOnce(tx, wire)
	sig := tx.Signatures[0].String()
	if truth := ch.ledger.Tx(sig); truth.Arrivals != 1 || truth.Forwarded != 1 {
		t.Fatalf("truth %+v: want one arrival, forwarded", truth)
	}
	// The wire bytes as given, base64, the preflight on the confirmed bank.
	if want := `["` + wire + `",{"encoding":"base64","preflightCommitment":"confirmed"}]`; ch.sendParams(wire) != want {
		t.Errorf("sendTransaction params %s, want %s", ch.sendParams(wire), want)
	}

	tx2, wire2, _ := ch.tx(2, 0)
	r := ch.run(defaultResolveTimeout, 0, "send", "--config", ch.cfg, "--json", "--skip-preflight", wire2)
	r.wantCode(t, exitOK)
	var got struct{ Signature string }
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || got.Signature != tx2.Signatures[0].String() {
		t.Fatalf("--json output %q (%v), want the signature", r.stdout, err)
	}
	if want := `["` + wire2 + `",{"encoding":"base64","skipPreflight":true}]`; ch.sendParams(wire2) != want {
		t.Errorf("sendTransaction params %s, want %s", ch.sendParams(wire2), want)
	}

	tx3, wire3, _ := ch.tx(3, 0)
	ch.sendOnce(tx3, wire3, "--preflight-commitment", "processed")
	if want := `["` + wire3 + `",{"encoding":"base64","preflightCommitment":"processed"}]`; ch.sendParams(wire3) != want {
		t.Errorf("sendTransaction params %s, want %s", ch.sendParams(wire3), want)
	}
}

// TestSendTakesBase58: a transaction given in base58 (as many bots and
// bundle APIs encode one) is sent, as base64, once.
func TestSendTakesBase58(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"})
	tx, wire, _ := ch.tx(4, 0)
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	ch.sendOnce(tx, base58.Encode(raw))
	if want := `["` + wire + `",{"encoding":"base64","preflightCommitment":"confirmed"}]`; ch.sendParams(wire) != want {
		t.Errorf("sendTransaction params %s, want %s", ch.sendParams(wire), want)
	}
	if truth := ch.ledger.Tx(tx.Signatures[0].String()); truth.Arrivals != 1 {
		t.Errorf("truth %+v: want one arrival", truth)
	}
}

// sendParams is the params of the sendTransaction of wire an endpoint of
// the chain received ("" when none did).
func (ch *chain) sendParams(wire string) string {
	for _, s := range ch.servers {
		for _, req := range s.Requests() {
			if req.Method == "sendTransaction" && strings.Contains(string(req.Params), wire) {
				return string(req.Params)
			}
		}
	}
	return ""
}

// TestSendAmbiguousExitsThree: a send that may have reached a server is
// not resent, exits 3, and says how to find out whether it landed.
func TestSendAmbiguousExitsThree(t *testing.T) {
	a := startServer(t, fixtures.Options{Script: fixtures.ByMethod(map[string]fixtures.Fault{"sendTransaction": {Kind: fixtures.ResetAfterRead}})})
	b := startServer(t, fixtures.Options{})
	cfg := writeConfig(t, "", testEndpoint{name: "a", url: a.URL()}, testEndpoint{name: "b", url: b.URL(), tier: 1})
	tx, err := fixtures.SignedTransaction(42, "")
	if err != nil {
		t.Fatal(err)
	}
	wire, err := fixtures.EncodeTransaction(tx)
	if err != nil {
		t.Fatal(err)
	}
	sig := tx.Signatures[0].String()
	for _, tt := range []struct {
		name  string
		extra []string
		n     string
	}{
		{"without the height", nil, "N (N: the lastValidBlockHeight getLatestBlockhash returned with the transaction's blockhash)"},
		{"with the height", []string{"--last-valid-block-height", "1150"}, "1150"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := a.Deliveries(sig) + b.Deliveries(sig)
			r := runCmd(t, append([]string{"send", "--config", cfg, wire}, tt.extra...)...)
			r.wantCode(t, exitAmbiguous)
			got := lines(r.stderr)
			want := fmt.Sprintf("; find out whether it landed with: solroute confirm --config %s %s --last-valid-block-height %s", cfg, sig, tt.n)
			if len(got) != 1 || !strings.HasPrefix(got[0], "solroute send: transport: sendTransaction may have reached a server and was not resent") ||
				!strings.HasSuffix(got[0], want) {
				t.Fatalf("stderr %q, want one line ending %q", r.stderr, want)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q", r.stdout)
			}
			if n := a.Deliveries(sig) + b.Deliveries(sig) - before; n != 1 {
				t.Fatalf("delivered %d times, want exactly once", n)
			}
		})
	}
}

// TestSendRefusedExitsOne: a preflight failure is an answer that no node
// acted on the send: exit 1, nothing to confirm, with or without
// --confirm.
func TestSendRefusedExitsOne(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"})
	tx, wire, lvbh := ch.tx(3, 0)
	sig := tx.Signatures[0].String()
	ch.ledger.Fail(sig, fixtures.Failure{Instruction: 0, Custom: 1}) // fails the simulation too
	for _, extra := range [][]string{nil, {"--confirm", "--last-valid-block-height", fmt.Sprint(lvbh)}} {
		r := ch.run(defaultResolveTimeout, 0, append([]string{"send", "--config", ch.cfg, wire}, extra...)...)
		r.wantCode(t, exitFailed)
		got := lines(r.stderr)
		if len(got) != 1 || !strings.HasPrefix(got[0], "solroute send: ") || !strings.Contains(got[0], "-32002: Transaction simulation failed") {
			t.Fatalf("%v: stderr %q, want the preflight error on one line", extra, r.stderr)
		}
		if r.stdout != "" {
			t.Errorf("%v: stdout %q", extra, r.stdout)
		}
	}
	if truth := ch.ledger.Tx(sig); truth.Forwarded != 0 || truth.Landed {
		t.Fatalf("truth %+v: a refused send was forwarded", truth)
	}
}

func TestSendConfirmLands(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"}, chainNode{name: "b"}, chainNode{name: "c"})
	tx, wire, lvbh := ch.tx(4, 0)
	sig := tx.Signatures[0].String()
	r := ch.run(defaultResolveTimeout, 20, "send", "--config", ch.cfg, "--confirm", "--last-valid-block-height", fmt.Sprint(lvbh), wire)
	r.wantCode(t, exitOK)
	truth := ch.ledger.Tx(sig)
	wantLines(t, r.stdout,
		"signature       "+sig,
		"send            answered",
		"status          landed",
		fmt.Sprintf("slot            %d", truth.Slot),
		"confirmation    confirmed (waited for confirmed)",
		"rebroadcasts    0 (--rebroadcast off)",
		"landed: it succeeded on chain; do not send it again")
	if truth.Arrivals != 1 || ch.sends() != 1 {
		t.Fatalf("truth %+v, %d sends: want one", truth, ch.sends())
	}
	if r.stderr != "" {
		t.Errorf("stderr %q", r.stderr)
	}
}

func TestSendConfirmFailedOnChain(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"}, chainNode{name: "b"})
	tx, wire, lvbh := ch.tx(5, 0)
	sig := tx.Signatures[0].String()
	ch.ledger.Fail(sig, fixtures.Failure{Instruction: 0, Custom: 6001, PassPreflight: true})
	r := ch.run(defaultResolveTimeout, 20, "send", "--config", ch.cfg, "--confirm", "--last-valid-block-height", fmt.Sprint(lvbh), "--json", wire)
	r.wantCode(t, exitFailedOnChain)
	rep := decodeReport(t, r.stdout)
	if rep.Status != "failed" || compact(t, rep.Err) != `{"InstructionError":[0,{"Custom":6001}]}` || rep.Slot != ch.ledger.Tx(sig).Slot ||
		rep.Rebroadcasts == nil || *rep.Rebroadcasts != 0 || rep.SendAmbiguous {
		t.Fatalf("report %+v", rep)
	}
}

// TestSendConfirmRebroadcastIsCounted: the send and the first rebroadcast
// are lost; the second lands it, once, and the report counts every
// rebroadcast the ledger saw.
func TestSendConfirmRebroadcastIsCounted(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"}, chainNode{name: "b"})
	tx, wire, lvbh := ch.tx(6, 0)
	sig := tx.Signatures[0].String()
	ch.ledger.Drop(sig, 2)
	r := ch.run(defaultResolveTimeout, 40, "send", "--config", ch.cfg, "--confirm", "--last-valid-block-height", fmt.Sprint(lvbh),
		"--rebroadcast", "800ms", "--skip-preflight", "--json", wire)
	r.wantCode(t, exitOK)
	rep := decodeReport(t, r.stdout)
	truth := ch.ledger.Tx(sig)
	if rep.Status != "landed" || rep.Rebroadcasts == nil || *rep.Rebroadcasts < 2 || truth.Arrivals != 1+*rep.Rebroadcasts ||
		!truth.Landed || rep.RebroadcastEvery != "800ms" || rep.Slot != truth.Slot {
		t.Fatalf("report %+v, truth %+v", rep, truth)
	}

	// The same, for people: the count and the interval.
	tx2, wire2, lvbh2 := ch.tx(7, 0)
	ch.ledger.Drop(tx2.Signatures[0].String(), 2)
	r = ch.run(defaultResolveTimeout, 40, "send", "--config", ch.cfg, "--confirm", "--last-valid-block-height", fmt.Sprint(lvbh2),
		"--rebroadcast", "800ms", "--skip-preflight", wire2)
	r.wantCode(t, exitOK)
	n := ch.ledger.Tx(tx2.Signatures[0].String()).Arrivals - 1
	wantLines(t, r.stdout, fmt.Sprintf("rebroadcasts    %d (every 800ms)", n), "status          landed")
}

func TestSendConfirmExpired(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"}, chainNode{name: "b"})
	tx, wire, lvbh := ch.tx(8, 140)
	sig := tx.Signatures[0].String()
	ch.ledger.Drop(sig, math.MaxInt)
	r := ch.run(defaultResolveTimeout, 200, "send", "--config", ch.cfg, "--confirm", "--last-valid-block-height", fmt.Sprint(lvbh), wire)
	r.wantCode(t, exitExpired)
	wantLines(t, r.stdout, "status          expired", "rebroadcasts    0 (--rebroadcast off)")
	if !ch.ledger.Tx(sig).Expired || ch.sends() != 1 {
		t.Fatalf("truth %+v, %d sends", ch.ledger.Tx(sig), ch.sends())
	}
}

// TestSendConfirmUnknownAtTimeout: --timeout bounds the whole command; the
// rebroadcasts made by then are counted.
func TestSendConfirmUnknownAtTimeout(t *testing.T) {
	ch := newChain(t, chainNode{name: "a"})
	tx, wire, lvbh := ch.tx(9, 0)
	sig := tx.Signatures[0].String()
	ch.ledger.Drop(sig, math.MaxInt)
	r := ch.run(1100*time.Millisecond, 10, "send", "--config", ch.cfg, "--confirm", "--last-valid-block-height", fmt.Sprint(lvbh),
		"--rebroadcast", "400ms", "--timeout", "1.1s", "--json", wire)
	r.wantCode(t, exitUnknown)
	rep := decodeReport(t, r.stdout)
	// Polls at 0, 400 and 800 ms; a rebroadcast after the second and the
	// third.
	if rep.Status != "unknown" || rep.Stopped != "timeout" || rep.Polls != 3 || rep.Rebroadcasts == nil || *rep.Rebroadcasts != 2 ||
		ch.ledger.Tx(sig).Arrivals != 3 {
		t.Fatalf("report %+v, truth %+v", rep, ch.ledger.Tx(sig))
	}
	want := fmt.Sprintf("unknown: no verdict within --timeout 1.1s; it may still land until a finalized block height passes %d: "+
		"run 'solroute confirm --config %s %s --last-valid-block-height %d' before signing it again", lvbh, ch.cfg, sig, lvbh)
	if rep.Verdict != want {
		t.Errorf("verdict %q, want %q", rep.Verdict, want)
	}
}

// TestSendConfirmAmbiguousIsResolved: the only endpoint lands the send
// and resets the connection before answering: the send is not resent,
// and its status says it landed.
func TestSendConfirmAmbiguousIsResolved(t *testing.T) {
	ch := newChain(t, chainNode{name: "a", sendFault: fixtures.Fault{Kind: fixtures.ResetAfterRead}})
	tx, wire, lvbh := ch.tx(10, 0)
	sig := tx.Signatures[0].String()
	r := ch.run(defaultResolveTimeout, 20, "send", "--config", ch.cfg, "--confirm", "--last-valid-block-height", fmt.Sprint(lvbh), wire)
	r.wantCode(t, exitOK)
	wantLines(t, r.stdout,
		"send            ambiguous: it may have reached a server and was not resent; its status decides",
		"status          landed")
	if truth := ch.ledger.Tx(sig); truth.Arrivals != 1 || !truth.Landed {
		t.Fatalf("truth %+v: want one arrival, landed", truth)
	}
	r = ch.run(defaultResolveTimeout, 20, "send", "--config", ch.cfg, "--confirm", "--last-valid-block-height", fmt.Sprint(lvbh), "--json", wire)
	rep := decodeReport(t, r.stdout)
	if !rep.SendAmbiguous || !strings.Contains(rep.SendError, "may have reached a server") {
		t.Fatalf("report %+v", rep)
	}
}

// transactionVariant re-encodes the fixtures' transaction seed after
// change.
func transactionVariant(t *testing.T, seed uint64, change func(tx *solana.Transaction, raw []byte) []byte) string {
	t.Helper()
	tx, err := fixtures.SignedTransaction(seed, "")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	raw = change(tx, raw)
	return base64.StdEncoding.EncodeToString(raw)
}

// reencode is tx's wire bytes.
func reencode(t *testing.T, tx *solana.Transaction) []byte {
	t.Helper()
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestSendUsageErrors(t *testing.T) {
	s := startServer(t, fixtures.Options{})
	cfg := writeConfig(t, "", testEndpoint{name: "a", url: s.URL()})
	tx, err := fixtures.SignedTransaction(1, "")
	if err != nil {
		t.Fatal(err)
	}
	wire, err := fixtures.EncodeTransaction(tx)
	if err != nil {
		t.Fatal(err)
	}
	trailing := transactionVariant(t, 1, func(_ *solana.Transaction, raw []byte) []byte { return append(raw, 0, 0) })
	unsigned := transactionVariant(t, 1, func(tx *solana.Transaction, _ []byte) []byte {
		tx.Signatures[0] = solana.Signature{}
		return reencode(t, tx)
	})
	noSignature := transactionVariant(t, 1, func(tx *solana.Transaction, _ []byte) []byte {
		tx.Signatures = nil
		return reencode(t, tx)
	})
	forged := transactionVariant(t, 1, func(tx *solana.Transaction, _ []byte) []byte {
		tx.Signatures[0][0] ^= 1
		return reencode(t, tx)
	})
	payer := tx.Message.AccountKeys[0].String()
	tests := []usageCase{
		{"no transaction", []string{"send", "--config", cfg}, "TX is required: a signed transaction's wire bytes in base64 or base58"},
		{"two transactions", []string{"send", "--config", cfg, wire, wire}, "too many arguments: want one TX, got 2"},
		{"neither encoding", []string{"send", "--config", cfg, "not base64!"}, "TX is neither base64 nor base58: " + txWanted},
		{"empty", []string{"send", "--config", cfg, ""}, "TX is empty: " + txWanted},
		{"too large", []string{"send", "--config", cfg, base64.StdEncoding.EncodeToString(make([]byte, 1300))},
			"TX is 1300 bytes (as base64): a transaction is at most 1232"},
		{"trailing bytes", []string{"send", "--config", cfg, trailing}, "TX is not one transaction: 2 bytes follow its "},
		{"unsigned", []string{"send", "--config", cfg, unsigned}, "TX is not signed: the signature of " + payer + " is missing"},
		{"no signature", []string{"send", "--config", cfg, noSignature}, "TX is not signed: the signature of " + payer + " is missing"},
		{"forged", []string{"send", "--config", cfg, forged}, "TX is not validly signed: invalid signature by " + payer},
		{"rebroadcast without confirm", []string{"send", "--config", cfg, "--rebroadcast", "2s", wire},
			"--rebroadcast needs --confirm: it re-sends while waiting for the verdict"},
		{"confirm without the height", []string{"send", "--config", cfg, "--confirm", wire},
			"--confirm needs --last-valid-block-height N: the lastValidBlockHeight getLatestBlockhash returned with the transaction's blockhash"},
		{"negative rebroadcast", []string{"send", "--config", cfg, "--confirm", "--last-valid-block-height", "1150", "--rebroadcast", "-1s", wire},
			"--rebroadcast must not be negative"},
		{"commitment without confirm", []string{"send", "--config", cfg, "--commitment", "finalized", wire},
			"--commitment needs --confirm: it is the commitment the verdict waits for (the preflight's is --preflight-commitment)"},
		{"preflight both ways", []string{"send", "--config", cfg, "--preflight-commitment", "processed", "--skip-preflight", wire},
			"--preflight-commitment and --skip-preflight contradict each other"},
		{"bad commitment", []string{"send", "--config", cfg, "--confirm", "--last-valid-block-height", "1150", "--commitment", "finalised", wire},
			`invalid --commitment "finalised": want processed, confirmed or finalized (did you mean "finalized"?)`},
		{"bad preflight commitment", []string{"send", "--config", cfg, "--preflight-commitment", "procesed", wire},
			`invalid --preflight-commitment "procesed": want processed, confirmed or finalized (did you mean "processed"?)`},
		{"zero timeout", []string{"send", "--config", cfg, "--timeout", "0s", wire}, "--timeout must be positive"},
		{"no config", []string{"send", wire}, "--config FILE is required"},
	}
	runUsageCases(t, tests)
	if n := s.Stats().Requests; n != 0 {
		t.Fatalf("a usage error sent %d requests", n)
	}
	// An error never quotes the transaction: it is long.
	for _, tt := range tests {
		if arg := tt.args[len(tt.args)-1]; len(arg) > 100 {
			if r := runCmd(t, tt.args...); strings.Contains(r.stderr, arg) {
				t.Errorf("%s: stderr quotes TX", tt.name)
			}
		}
	}
}

// TestSendWithoutTheRoleIsAConfigError: send needs a send endpoint, and
// with --confirm a read endpoint too; without, nothing is sent.
func TestSendWithoutTheRoleIsAConfigError(t *testing.T) {
	s := startServer(t, fixtures.Options{})
	readOnly := writeConfig(t, "", testEndpoint{name: "reader", url: s.URL(), roles: "read"})
	sendOnly := writeConfig(t, "", testEndpoint{name: "sender", url: s.URL(), roles: "send"})
	tx, err := fixtures.SignedTransaction(1, "")
	if err != nil {
		t.Fatal(err)
	}
	wire, err := fixtures.EncodeTransaction(tx)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"send", "--config", readOnly, wire},
			"solroute send: configuration error: sendTransaction needs an endpoint that serves role send, and none in " + readOnly +
				" does (give one an [endpoints.roles.send] table)"},
		{[]string{"send", "--config", sendOnly, "--confirm", "--last-valid-block-height", "1150", wire},
			"solroute send: configuration error: getSignatureStatuses needs an endpoint that serves role read, and none in " + sendOnly +
				" does (give one an [endpoints.roles.read] table)"},
	}
	for _, tt := range tests {
		r := runCmd(t, tt.args...)
		r.wantCode(t, exitUsage)
		if got := lines(r.stderr); len(got) != 1 || got[0] != tt.want {
			t.Errorf("stderr %q, want the one line %q", r.stderr, tt.want)
		}
	}
	if n := s.Stats().Requests; n != 0 {
		t.Fatalf("the server received %d requests", n)
	}
}

// TestSendNotAWholeTransaction: bytes that hold no transaction are named
// so, with what TX must be, never with solana-go's decoder text (issue
// 21: "send AAAA" showed "unable to decode mx.Header..."); a signature
// given for the transaction is recognised by its size.
func TestSendNotAWholeTransaction(t *testing.T) {
	s := startServer(t, fixtures.Options{})
	cfg := writeConfig(t, "", testEndpoint{name: "a", url: s.URL()})
	tx, err := fixtures.SignedTransaction(1, "")
	if err != nil {
		t.Fatal(err)
	}
	raw := reencode(t, tx)
	sig := tx.Signatures[0].String() // 88 characters: base58, and base64 too
	runUsageCases(t, []usageCase{
		{"three zero bytes", []string{"send", "--config", cfg, "AAAA"},
			"solroute send: TX is not a whole transaction (3 bytes as base64, 3 bytes as base58): " + txWanted + " (see 'solroute send --help')"},
		{"one byte", []string{"send", "--config", cfg, "AQ=="}, "TX is not a whole transaction (1 byte as base64): " + txWanted},
		{"cut short, base64", []string{"send", "--config", cfg, base64.StdEncoding.EncodeToString(raw[:len(raw)-10])},
			"TX is not a whole transaction ("},
		{"cut short, base58", []string{"send", "--config", cfg, base58.Encode(raw[:len(raw)-10])}, "TX is not a whole transaction ("},
		{"a signature", []string{"send", "--config", cfg, sig},
			"TX is not a whole transaction (66 bytes as base64, 64 bytes as base58): " + txWanted +
				"; 64 bytes is a signature's size: send wants the signed transaction itself"},
	})
	for _, arg := range []string{"AAAA", "AQ==", sig} {
		if r := runCmd(t, "send", "--config", cfg, arg); strings.Contains(r.stderr, "decode") || strings.Contains(r.stderr, "numSignatures") {
			t.Errorf("send %s: stderr shows the decoder's text: %q", arg, r.stderr)
		}
	}
	if n := s.Stats().Requests; n != 0 {
		t.Fatalf("a refused TX sent %d requests", n)
	}
}
