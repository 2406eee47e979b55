package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/internal/fixturedata"
)

// fakeRun is one "solroute serve-fake" running in the test: its fake
// clock, the document it printed, and how to stop it.
type fakeRun struct {
	clock *clockwork.FakeClock
	doc   string
	stop  func() int // interrupts it and returns its exit code
}

// startServeFake runs "solroute serve-fake" with args on a fake clock (the
// servers' slots move only when the test advances it) and reads its
// stdout up to the ready line: no sleep, the command says when it serves.
func startServeFake(t *testing.T, args ...string) *fakeRun {
	t.Helper()
	clock := clockwork.NewFakeClockAt(time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC))
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var errb lockedBuffer
	e := &env{stdout: pw, stderr: &errb, clock: clock, buildInfo: debug.ReadBuildInfo}
	done := make(chan int, 1)
	go func() {
		code := e.dispatch(ctx, append([]string{"serve-fake"}, args...))
		_ = pw.Close()
		done <- code
	}()
	var doc strings.Builder
	sc := bufio.NewScanner(pr)
	ready := false
	for !ready && sc.Scan() {
		if ready = sc.Text() == serveFakeReady; !ready {
			doc.WriteString(sc.Text() + "\n")
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }() // nothing more is expected; never block the command
	if !ready {
		cancel()
		<-done
		t.Fatalf("serve-fake never said it was ready (%v); stdout:\n%s\nstderr:\n%s", sc.Err(), doc.String(), errb.String())
	}
	stopped := false
	f := &fakeRun{clock: clock, doc: doc.String(), stop: func() int {
		if stopped {
			return -1
		}
		stopped = true
		cancel()
		return <-done
	}}
	t.Cleanup(func() { f.stop() })
	return f
}

// TestServeFake: serve-fake prints a document that probe, call, send and
// confirm take as it is, serves until interrupted, and exits 0.
func TestServeFake(t *testing.T) {
	f := startServeFake(t, "--seed", "3")
	cfg := writeFile(t, "fake.toml", f.doc)

	r := runCmd(t, "call", "--config", cfg, "getSlot", `[{"commitment":"confirmed"}]`)
	r.wantCode(t, exitOK)
	if _, err := strconv.ParseUint(strings.TrimSpace(r.stdout), 10, 64); err != nil {
		t.Fatalf("getSlot printed %q", r.stdout)
	}

	// Each endpoint alone: the dead one times out (its canaries are bounded
	// by --timeout, on the real clock), the honest ones pass.
	r = runCmd(t, "probe", "--config", cfg, "--timeout", "300ms", "--json")
	r.wantCode(t, exitFailed)
	var rep probeReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("probe --json: %v\n%s", err, r.stdout)
	}
	status := map[string]bool{}
	for _, ep := range rep.Endpoints {
		status[ep.Name] = ep.OK
	}
	if len(status) != 7 || !status[fixturedata.MainnetHonestA] || !status[fixturedata.MainnetHonestB] || status[fixturedata.MainnetDead] {
		t.Errorf("probe: %v, want the 7 endpoints, the honest ones ok, the dead one failed:\n%s", status, r.stdout)
	}

	// A transfer from the transaction URL is sent, then found landed once
	// the fake chain has moved on.
	tx, lvbh := fetchFakeTransaction(t, f.doc)
	r = runCmd(t, "send", "--config", cfg, tx)
	if r.code != exitOK && r.code != exitAmbiguous {
		t.Fatalf("send: exit %d, want 0 (sent) or 3 (ambiguous, to confirm)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	parsed, _, err := parseTransaction(tx)
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(20 * fixturedata.DefaultSlotTime)
	r = runCmd(t, "confirm", "--config", cfg, parsed.Signatures[0].String(), "--last-valid-block-height", lvbh, "--timeout", "20s")
	r.wantCode(t, exitOK)
	if !strings.Contains(r.stdout, "status          landed") {
		t.Errorf("confirm:\n%s", r.stdout)
	}

	if code := f.stop(); code != exitOK {
		t.Errorf("serve-fake exited %d once interrupted, want 0", code)
	}
	if r := runCmd(t, "call", "--config", cfg, "--timeout", "500ms", "getSlot"); r.code == exitOK {
		t.Errorf("the fake cluster still answers after serve-fake returned: %q", r.stdout)
	}
}

// fetchFakeTransaction GETs the transaction URL the document names:
// "TX LAST_VALID_BLOCK_HEIGHT".
func fetchFakeTransaction(t *testing.T, doc string) (tx, lvbh string) {
	t.Helper()
	m := regexp.MustCompile(`curl -s (http://127\.0\.0\.1:\d+/transaction)\)`).FindStringSubmatch(doc)
	if m == nil {
		t.Fatalf("the document names no transaction URL:\n%s", doc)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get(m[1])
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v\n%s", m[1], resp.Status, err, body)
	}
	f := strings.Fields(string(body))
	if len(f) != 2 {
		t.Fatalf("GET %s answered %q, want TX LAST_VALID_BLOCK_HEIGHT", m[1], body)
	}
	return f[0], f[1]
}

// TestServeFakeOut: with --out the document is written whole to the file,
// and stdout says where.
func TestServeFakeOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fake.toml")
	f := startServeFake(t, "--out", path)
	if !strings.HasPrefix(f.doc, "solroute serve-fake: 7 fake endpoints on loopback; the document is in "+path+"\n") {
		t.Errorf("stdout %q", f.doc)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := runCmd(t, "call", "--config", path, "getHealth")
	r.wantCode(t, exitOK)
	if !strings.Contains(string(data), `cluster = "mainnet-beta"`) || strings.TrimSpace(r.stdout) != `"ok"` {
		t.Errorf("document:\n%s\ngetHealth: %q", data, r.stdout)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("the folder holds %d files, want the document alone", len(entries))
	}
}

func TestServeFakeUsageErrors(t *testing.T) {
	runUsageCases(t, []usageCase{
		{"positional", []string{"serve-fake", "now"}, `unexpected argument "now": serve-fake takes flags only`},
		{"bad seed", []string{"serve-fake", "--seed", "x"}, "--seed: x is not a whole number"},
	})
	r := runCmd(t, "serve-fake", "--out", filepath.Join(t.TempDir(), "no", "such", "dir", "fake.toml"))
	r.wantCode(t, exitFailed)
	if !strings.HasPrefix(r.stderr, "solroute serve-fake: cannot write --out: ") {
		t.Errorf("stderr %q", r.stderr)
	}
}
