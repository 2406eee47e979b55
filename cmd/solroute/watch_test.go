package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/fixtures"
)

// watchSlotTime is the watch tests' slot: the command runs on the real
// clock, as a user runs it, on a cluster 20 times faster than agave's, so
// a test of 30 slots takes about a second. The tests wait for the
// command's lines (events), never for a time.
const watchSlotTime = 40 * time.Millisecond

// watchEnv is a fake cluster of three endpoints (a, b at tier 0, c at
// tier 1), each serving HTTP and PubSub on one ledger, and a document
// naming them.
type watchEnv struct {
	cluster *fixtures.Cluster
	ledger  *fixtures.Ledger
	config  string
}

func newWatchEnv(t *testing.T) *watchEnv {
	t.Helper()
	w := &watchEnv{ledger: fixtures.NewLedger()}
	var ms []fixtures.Member
	for i, n := range []string{"a", "b", "c"} {
		ms = append(ms, fixtures.Member{Name: n, Tier: i / 2, PubSub: &fixtures.PubSubOptions{},
			Options: fixtures.Options{Ledger: w.ledger, Slots: &fixtures.SlotOptions{SlotTime: watchSlotTime}}})
	}
	w.cluster = fixtures.NewCluster(ms)
	t.Cleanup(w.cluster.Close)
	var b strings.Builder
	for _, ep := range w.cluster.Endpoints() {
		fmt.Fprintf(&b, "[[endpoints]]\nname = %q\nurl = %q\nws_url = %q\ntier = %d\n  [endpoints.roles.read]\n  [endpoints.subscribe]\n",
			ep.Name, ep.URL, ep.WSURL, ep.Tier)
	}
	w.config = writeFile(t, "watch.toml", b.String())
	return w
}

// watchRun is one "solroute watch" running in the test: its stdout lines
// as they come, and its end.
type watchRun struct {
	lines  chan string
	done   chan int
	stderr *lockedBuffer
	cancel context.CancelFunc
}

// startWatch runs "solroute watch --config CFG args..." on the real clock.
func startWatch(t *testing.T, cfg string, args ...string) *watchRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	r := &watchRun{lines: make(chan string, 1024), done: make(chan int, 1), stderr: &lockedBuffer{}, cancel: cancel}
	e := &env{stdout: pw, stderr: r.stderr, clock: clockwork.NewRealClock(), buildInfo: debug.ReadBuildInfo}
	go func() {
		code := e.dispatch(ctx, append([]string{"watch", "--config", cfg}, args...))
		_ = pw.Close()
		r.done <- code
	}()
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
		close(r.lines)
	}()
	t.Cleanup(func() {
		cancel()
		for range r.lines {
		}
	})
	return r
}

// line returns the next stdout line, false once stdout ended, within a
// watchdog that asserts no duration.
func (r *watchRun) line(t *testing.T) (string, bool) {
	t.Helper()
	select {
	case l, ok := <-r.lines:
		return l, ok
	case <-time.After(20 * time.Second):
		t.Fatalf("no line from watch; stderr: %s", r.stderr.String())
		return "", false
	}
}

// next returns the next stdout line.
func (r *watchRun) next(t *testing.T) string {
	t.Helper()
	l, ok := r.line(t)
	if !ok {
		t.Fatalf("watch ended early; stderr: %s", r.stderr.String())
	}
	return l
}

// rest returns every remaining non-empty line and the exit code.
func (r *watchRun) rest(t *testing.T) ([]string, int) {
	t.Helper()
	var out []string
	for l, ok := r.line(t); ok; l, ok = r.line(t) {
		if l != "" {
			out = append(out, l)
		}
	}
	return out, <-r.done
}

// notification is "KIND SLOT ... (first: EP)" or "(read back over HTTP)".
var notification = regexp.MustCompile(`^(\w+)\s+(\d+)\s+(.*)\((first: ([\w-]+)|read back over HTTP)\)$`)

// summaryCount reads "  NAME: N (" from the summary.
func summaryCount(t *testing.T, lines []string, name string) int {
	t.Helper()
	for _, l := range lines {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), name+": "); ok {
			n, err := strconv.Atoi(strings.Fields(v)[0])
			if err != nil {
				t.Fatalf("summary line %q: %v", l, err)
			}
			return n
		}
	}
	t.Fatalf("no %q in the summary:\n%s", name, strings.Join(lines, "\n"))
	return 0
}

// TestWatchSlotSurvivesADroppedEndpoint: watch slot prints every slot
// once, in order, with the endpoint that delivered it first, while one of
// the three endpoints has every connection cut after the fifth line; the
// summary counts the duplicates suppressed and the failover.
func TestWatchSlotSurvivesADroppedEndpoint(t *testing.T) {
	w := newWatchEnv(t)
	r := startWatch(t, w.config, "slot", "--count", "30")
	if h := r.next(t); !strings.HasPrefix(h, "watch: slot on 3 subscribe endpoint(s), each notification from 3 at once") {
		t.Fatalf("header %q", h)
	}
	var lines []string
	for len(lines) < 5 {
		lines = append(lines, r.next(t))
	}
	if n := w.cluster.PubSub("a").Drop(); n == 0 {
		t.Fatal("a held no connection to drop")
	}
	rest, code := r.rest(t)
	if code != exitOK {
		t.Fatalf("exit %d; stderr %s", code, r.stderr.String())
	}
	lines = append(lines, rest...)
	var slots []uint64
	for _, l := range lines {
		m := notification.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if m[1] != "slot" || m[5] == "" {
			t.Errorf("line %q: want a slot delivered first by an endpoint", l)
		}
		s, _ := strconv.ParseUint(m[2], 10, 64)
		slots = append(slots, s)
	}
	if len(slots) != 30 {
		t.Fatalf("%d slot lines, want 30:\n%s", len(slots), strings.Join(lines, "\n"))
	}
	for i := 1; i < len(slots); i++ {
		if slots[i] != slots[i-1]+1 {
			t.Errorf("slot %d after %d: want every slot once, in order", slots[i], slots[i-1])
		}
	}
	if d, f := summaryCount(t, lines, "duplicates suppressed"), summaryCount(t, lines, "failovers"); d == 0 || f == 0 {
		t.Errorf("duplicates suppressed %d, failovers %d: want both above 0", d, f)
	}
	if !strings.Contains(strings.Join(lines, "\n"), "watch: --count 30 reached after") {
		t.Errorf("no stop line:\n%s", strings.Join(lines, "\n"))
	}
}

// TestWatchAccount: watch account prints each state once, in order: the
// one it finds at start (read back over HTTP or from an endpoint), then
// each change.
func TestWatchAccount(t *testing.T) {
	w := newWatchEnv(t)
	acct := solana.PublicKey{7, 7, 7}
	set := func(lamports uint64) {
		if _, _, err := w.ledger.Apply(fixtures.Change{Accounts: map[string]*fixtures.AccountState{
			acct.String(): {Lamports: lamports, Data: []byte{byte(lamports)}}}}); err != nil {
			t.Fatal(err)
		}
	}
	set(1)
	r := startWatch(t, w.config, "account", acct.String(), "--count", "3")
	r.next(t) // the header
	var got []string
	for want := uint64(1); want <= 3; want++ {
		l := r.next(t)
		m := notification.FindStringSubmatch(l)
		if m == nil || !strings.Contains(m[3], fmt.Sprintf("%s %d lamports, 1 bytes", acct, want)) {
			t.Fatalf("line %q: want the state of %d lamports", l, want)
		}
		got = append(got, l)
		if want < 3 {
			set(want + 1)
		}
	}
	rest, code := r.rest(t)
	if code != exitOK || summaryCount(t, rest, "stale") != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, strings.Join(append(got, rest...), "\n"), r.stderr.String())
	}
}

// TestWatchSignatureEndsAtItsNotification: a transaction that landed
// before the watch is found (read back), printed once, and the command
// ends, exit 0.
func TestWatchSignatureEndsAtItsNotification(t *testing.T) {
	w := newWatchEnv(t)
	sig, _, err := w.ledger.Apply(fixtures.Change{Accounts: map[string]*fixtures.AccountState{
		solana.PublicKey{9}.String(): {Lamports: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	r := startWatch(t, w.config, "signature", sig)
	lines, code := r.rest(t)
	out := strings.Join(lines, "\n")
	if code != exitOK || !strings.Contains(out, "signature  ") || !strings.Contains(out, sig+" ok") ||
		!strings.Contains(out, "the signature's one notification came") {
		t.Fatalf("exit %d:\n%s\nstderr: %s", code, out, r.stderr.String())
	}
}
