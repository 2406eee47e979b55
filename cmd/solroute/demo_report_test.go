package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/transport"
)

// postSend delivers a sendTransaction of wire to s directly, bypassing the
// pool. The answer does not matter (a reset is one of the cases).
func postSend(s *fixtures.Server, wire string) {
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	body := `{"jsonrpc":"2.0","id":1,"method":"sendTransaction","params":["` + wire + `",{"encoding":"base64"}]}`
	resp, err := (&http.Client{Transport: tr}).Post(s.URL(), "application/json", strings.NewReader(body))
	if err == nil {
		_ = resp.Body.Close()
	}
}

func TestDemoResultCountsDuplicates(t *testing.T) {
	tx, err := fixtures.SignedTransaction(99, "")
	if err != nil {
		t.Fatal(err)
	}
	wire, err := fixtures.EncodeTransaction(tx)
	if err != nil {
		t.Fatal(err)
	}
	sig := tx.Signatures[0].String()
	tests := []struct {
		name                              string
		faults                            []fixtures.Fault // one server per fault, each gets the send once
		deliveries, forwarded, duplicates int
	}{
		{"once", []fixtures.Fault{{}}, 1, 1, 0},
		{"refused then forwarded", []fixtures.Fault{fixtures.Status(429, "1"), {}}, 2, 1, 0},
		{"node behind then forwarded", []fixtures.Fault{fixtures.RPC(-32005), {}}, 2, 1, 0},
		{"forwarded twice", []fixtures.Fault{{}, {}}, 2, 2, 1},
		{"reset after read then forwarded", []fixtures.Fault{{Kind: fixtures.ResetAfterRead}, {}}, 2, 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var members []fixtures.Member
			for i, f := range tt.faults {
				members = append(members, fixtures.Member{Name: string(rune('a' + i)), Options: fixtures.Options{Script: fixtures.Always(f)}})
			}
			c := fixtures.NewCluster(members)
			defer c.Close()
			for _, ep := range c.Endpoints() {
				_, s := ep.Name, c.Server(ep.Name)
				postSend(s, wire)
			}
			stats := newDemoStats()
			stats.call(time.Millisecond, sig, outcomeOK)
			res := newDemoResult(stats, c, nil, time.Second)
			if res.deliveries != tt.deliveries || res.forwarded != tt.forwarded || res.duplicates != tt.duplicates {
				t.Fatalf("deliveries %d forwarded %d duplicates %d, want %d %d %d",
					res.deliveries, res.forwarded, res.duplicates, tt.deliveries, tt.forwarded, tt.duplicates)
			}
			var out bytes.Buffer
			res.write(&out)
			want := "duplicates delivered: " + string(rune('0'+tt.duplicates)) + " ("
			if !strings.Contains(out.String(), want) {
				t.Fatalf("summary lacks %q:\n%s", want, out.String())
			}
		})
	}
}

// TestDemoInterruptedTotalsAgree: a call that Ctrl-C cuts short is
// counted once, as interrupted, in every total that holds it. The demo
// used to drop it from the calls while its send stayed in the
// transactions, so the summary contradicted itself (issue 11).
func TestDemoInterruptedTotalsAgree(t *testing.T) {
	ambiguous := fmt.Errorf("transport: sendTransaction failed: %w", solroute.ErrAmbiguousDispatch)
	type step struct {
		signature string // "" for a read
		err       error
		interrupt bool // Ctrl-C arrives while the call is in flight
	}
	runs := [][]step{{
		{"", nil, false},
		{"sig-landed", nil, false},
		{"sig-ambiguous", ambiguous, false},
		{"", errors.New("HTTP 503"), false},
		{"sig-refused", errors.New("HTTP 429"), false},
		{"sig-cut", context.Canceled, true},
	}, {
		{"", context.Canceled, true},
	}, {
		// Told ambiguous as the interrupt came: what the caller was told.
		{"sig-cut-ambiguous", ambiguous, true},
	}}
	stats := newDemoStats()
	for i, script := range runs {
		ctx, cancel := context.WithCancel(context.Background())
		n := 0
		w := &workload{clock: clockwork.NewFakeClock(), stats: stats, ops: []operation{{weight: 1,
			do: func(context.Context, *workload) (string, error) {
				s := script[n]
				n++
				if s.interrupt {
					cancel()
				}
				return s.signature, s.err
			}}}}
		w.caller(ctx, i, make(chan struct{}))
		cancel()
		if n != len(script) {
			t.Fatalf("run %d: the caller made %d calls, want %d", i, n, len(script))
		}
	}
	c := fixtures.NewCluster([]fixtures.Member{{Name: "a"}})
	defer c.Close()
	var out bytes.Buffer
	newDemoResult(stats, c, nil, time.Second).write(&out)
	for _, want := range []string{
		"calls: 8 in 1s (8/s): 2 ok (33.3% of the 6 that finished), 2 ambiguous, 2 failed, 2 interrupted (cut short by Ctrl-C)\n",
		"transactions: 5 sent, among the calls: 1 answered with their signature, 2 ambiguous, 1 failed, 1 interrupted\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	checkDemoTotals(t, out.String())
}

// checkDemoTotals checks that the demo's summary adds up: its calls are
// the ok, failed and interrupted ones, its transactions sent are their
// parts, and no part of the transactions exceeds its kind of call.
func checkDemoTotals(t *testing.T, summary string) {
	t.Helper()
	num := func(pattern string) []int {
		t.Helper()
		m := regexp.MustCompile(pattern).FindStringSubmatch(summary)
		if m == nil {
			t.Fatalf("summary lacks %s:\n%s", pattern, summary)
		}
		var out []int
		for _, s := range m[1:] {
			n := 0
			if s != "" {
				var err error
				if n, err = strconv.Atoi(s); err != nil {
					t.Fatal(err)
				}
			}
			out = append(out, n)
		}
		return out
	}
	c := num(`calls: (\d+) in .*: (\d+) ok \(.*\), (\d+) ambiguous, (\d+) failed(?:, (\d+) interrupted)?`)
	calls, ok, ambiguous, failed, interrupted := c[0], c[1], c[2], c[3], c[4]
	tx := num(`transactions: (\d+) sent, among the calls: (\d+) answered with their signature, (\d+) ambiguous, (\d+) failed(?:, (\d+) interrupted)?\n`)
	if ok+ambiguous+failed+interrupted != calls {
		t.Errorf("%d ok + %d ambiguous + %d failed + %d interrupted != %d calls:\n%s", ok, ambiguous, failed, interrupted, calls, summary)
	}
	if tx[1]+tx[2]+tx[3]+tx[4] != tx[0] {
		t.Errorf("the transactions' parts do not add up to %d:\n%s", tx[0], summary)
	}
	if tx[0] > calls || tx[1] > ok || tx[2] > ambiguous || tx[3] > failed || tx[4] > interrupted {
		t.Errorf("a part of the transactions exceeds its kind of call:\n%s", summary)
	}
}

// TestDemoTableShowsSlots: the table's SLOT, LAG and STATE cells, from the
// pool's snapshots.
func TestDemoTableShowsSlots(t *testing.T) {
	read := func(name string, f func(*endpoint.Snapshot)) endpoint.Snapshot {
		s := endpoint.Snapshot{Name: name, Role: endpoint.RoleRead, State: endpoint.Available,
			Slot: 1000, SlotCommitment: rpc.CommitmentConfirmed}
		f(&s)
		return s
	}
	snaps := []endpoint.Snapshot{
		read("in-step", func(s *endpoint.Snapshot) { s.SlotLag = 1 }),
		read("behind", func(s *endpoint.Snapshot) {
			s.Slot, s.SlotLag, s.SlotStanding, s.State = 900, 100, endpoint.Lagging, endpoint.Degraded
		}),
		read("ahead", func(s *endpoint.Snapshot) { s.Slot, s.SlotLag, s.SlotStanding = 1040, -40, endpoint.Outlier }),
		read("finalized", func(s *endpoint.Snapshot) { s.Slot, s.SlotCommitment = 968, rpc.CommitmentFinalized }),
		read("unseen", func(s *endpoint.Snapshot) { s.Slot, s.Verification = 0, endpoint.Unverified }),
		read("devnet", func(s *endpoint.Snapshot) {
			s.Slot, s.Verification, s.Excluded = 0, endpoint.WrongCluster, "serves devnet; the configuration says mainnet-beta"
		}),
		{Name: "in-step", Role: endpoint.RoleSend, Slot: 1000}, // the send role's row is not shown
	}
	c := fixtures.NewCluster([]fixtures.Member{{Name: "a"}})
	defer c.Close()
	var out bytes.Buffer
	newDemoResult(newDemoStats(), c, snaps, time.Second).write(&out)
	want := map[string][]string{
		"in-step":   {"1000", "1", "available"},
		"behind":    {"900", "100", "lagging", "degraded"},
		"ahead":     {"1040", "-40", "outlier", "available"},
		"finalized": {"968", "(finalized)", "0", "available"},
		"unseen":    {"-", "-", "unverified"},
		"devnet":    {"-", "-", "wrong-cluster"},
	}
	seen := 0
	for _, line := range lines(out.String()) {
		f := strings.Fields(line)
		if len(f) == 0 || want[f[0]] == nil {
			continue
		}
		seen++
		if got := f[10:]; !slices.Equal(got, want[f[0]]) {
			t.Errorf("%s: SLOT, LAG, STATE read %q, want %q\n%s", f[0], got, want[f[0]], out.String())
		}
	}
	if seen != len(want) {
		t.Errorf("%d rows, want %d:\n%s", seen, len(want), out.String())
	}
	if strings.Contains(out.String(), "slot lag:") {
		t.Errorf("a slot lag line without a lag:\n%s", out.String())
	}
}

// TestDemoResultLagShare: the slot lag line counts the read attempts made
// after the endpoint fell behind, its own and all, sends left out.
func TestDemoResultLagShare(t *testing.T) {
	stats := newDemoStats()
	attempt := func(method, name string) {
		stats.attempt(context.Background(), method, transport.Attempt{Endpoint: name})
	}
	attempt("getBalance", "slow")
	attempt("getSlot", "fast")
	stats.markLag("slow", 100, 2*time.Second)
	attempt("getSlot", "fast")
	attempt("getHealth", "slow")
	attempt("sendTransaction", "slow")
	attempt("getBalance", "fast")
	attempt("getBalance", "fast")
	c := fixtures.NewCluster([]fixtures.Member{{Name: "a"}})
	defer c.Close()
	var out bytes.Buffer
	newDemoResult(stats, c, nil, 3*time.Second).write(&out)
	want := "slot lag: slow fell 100 slots behind at 2s; since then it took 1 of 4 read attempts (25.0%), as a last resort\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, out.String())
	}
}

// TestEndpointStates: the progress line names the endpoints that are not
// plainly ok, and says why in a few words.
func TestEndpointStates(t *testing.T) {
	snaps := []endpoint.Snapshot{
		{Name: "fine", Role: endpoint.RoleRead},
		{Name: "limited", Role: endpoint.RoleRead, State: endpoint.RateLimited, CooldownRemaining: 600 * time.Millisecond},
		{Name: "behind", Role: endpoint.RoleRead, State: endpoint.Degraded, SlotStanding: endpoint.Lagging, SlotLag: 101},
		{Name: "held", Role: endpoint.RoleRead, Verification: endpoint.Unverified},
		{Name: "sender", Role: endpoint.RoleSend, State: endpoint.Degraded},
	}
	want := "limited limited 600ms  behind degraded lagging 101  held unverified"
	if got := endpointStates(snaps); got != want {
		t.Errorf("endpointStates = %q, want %q", got, want)
	}
	if got := endpointStates(snaps[:1]); got != "all ok" {
		t.Errorf("endpointStates of an endpoint that is ok = %q, want %q", got, "all ok")
	}
}

// TestDemoSummaryWording: every line of the summary says what it counts,
// for a reader who has not seen the code (issue 21): "failed" means the
// same in the calls' line and the transactions' line (ambiguous sends
// apart in both), every column of the table is named in the legend under
// it, COST among them, and a column without data reads "-".
func TestDemoSummaryWording(t *testing.T) {
	ambiguous := fmt.Errorf("transport: sendTransaction failed: %w", solroute.ErrAmbiguousDispatch)
	stats := newDemoStats()
	for _, c := range []struct {
		sig string
		err error
	}{{"", nil}, {"", nil}, {"", nil}, {"", errors.New("HTTP 503")}, {"sig-1", nil}, {"sig-2", ambiguous}, {"sig-3", ambiguous}} {
		stats.call(time.Millisecond, c.sig, outcomeOf(c.err, false))
	}
	stats.byTier[0], stats.byTier[1] = 3, 1
	snaps := []endpoint.Snapshot{
		{Name: "timed", Role: endpoint.RoleRead, Latency: time.Millisecond, Cost: 2 * time.Millisecond, Slot: 1000, SlotCommitment: rpc.CommitmentConfirmed},
		{Name: "untimed", Role: endpoint.RoleRead, Tier: 1, Cost: time.Hour, Verification: endpoint.Unverified},
	}
	c := fixtures.NewCluster([]fixtures.Member{{Name: "a"}})
	defer c.Close()
	var out bytes.Buffer
	newDemoResult(stats, c, snaps, time.Second).write(&out)
	got := out.String()
	header, _, _ := strings.Cut(got, "\n")
	from, to := strings.Index(got, "\n  TIER:"), strings.Index(got, "\n\ncalls:")
	if from < 0 || to < from {
		t.Fatalf("no legend between the table and the calls:\n%s", got)
	}
	legend := got[from:to]
	for _, column := range strings.Fields(header)[1:] {
		if !regexp.MustCompile(`\b` + column + `[:, ]`).MatchString(legend) {
			t.Errorf("the legend does not explain the column %s:\n%s", column, got)
		}
	}
	if f := strings.Fields(lines(got)[2]); f[0] != "untimed" || f[6] != "-" || f[7] != "-" || f[9] != "-" {
		t.Errorf("an endpoint without attempts or a timed answer: P50, P99, COST read %q, want -:\n%s", f, got)
	}
	summary := got[max(strings.Index(got, "calls:"), 0):]
	want := `calls: 7 in 1s (7/s): 4 ok (57.1%), 2 ambiguous, 1 failed
  ambiguous: may have reached a server, which did not answer: not resent; its caller was told
  (solroute.ErrAmbiguousDispatch) and must find out whether it landed. failed: any other error.
retries: 0 (attempts made after a failed one, on the same endpoint or another)
fallbacks: 1 ok call served by tier 1 (tier 0 served 3)
latency of a call: p50 1ms, p99 1ms (its attempts, waits and backoffs included)
transactions: 3 sent, among the calls: 1 answered with their signature, 2 ambiguous, 0 failed
send requests the endpoints read: 0: 0 acted on, 0 refused without acting (HTTP 429 or node behind: safe to send elsewhere)
duplicates delivered: 0 (transactions acted on more than once, counted by the fake endpoints themselves)

No transaction reached the cluster twice: a send that may have reached a server is
reported to its caller as ambiguous (solroute.ErrAmbiguousDispatch), never resent.
`
	if summary != want {
		t.Errorf("summary:\n%s\nwant:\n%s", summary, want)
	}
}
