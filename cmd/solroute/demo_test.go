package main

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDemoShortRun runs the demo for 1.5 s: long enough for the pool to
// learn that primary-c fell behind. Reads go where their slot is, so
// primary-c, a few slots short of the others when it falls, is asked
// again only once its last reading is a second old (plans/009). The demo
// runs on the wall clock, so a machine slowed enough (the race detector,
// other tests) can end the run before that: a run that shows no lagging
// row at all is run again, twice as long, up to 6 s (logged). A lagging
// row that is wrong (another endpoint, another lag) fails at once.
func TestDemoShortRun(t *testing.T) {
	d := 1500 * time.Millisecond
	r := runCmd(t, "demo", "--duration", "1500ms", "--callers", "4", "--seed", "3")
	for r.code == exitOK && len(laggingRows(r.stdout)) == 0 && d < 6*time.Second {
		d *= 2
		t.Logf("no lagging row after %v: running %v", d/2, d)
		r = runCmd(t, "demo", "--duration", d.String(), "--callers", "4", "--seed", "3")
	}
	r.wantCode(t, exitOK)
	lagAt := time.Duration(float64(d) * demoLagFrom)     // 300ms of 1.5 s
	stallAt := time.Duration(float64(d) * demoStallFrom) // 450ms
	for _, want := range []string{
		"solroute demo: 7 fake endpoints on loopback, 4 callers, " + d.String() + ", seed 3",
		"  primary-c    tier 0  reads only; falls 100 slots behind the others at " + short(lagAt) + "\n",
		"  every endpoint drifts 0 to 5 slots behind the tip; the chain stalls from " + short(stallAt) + " for 12s (no slot moves)\n",
		"ENDPOINT", demoPrimaryA, demoPrimaryB, demoPrimaryC, demoPrimaryD, demoBackup, demoDead, demoLastResort,
		"chain stall: no new slot from ",
		"  SLOT  ", "calls: ", "retries: ", "fallbacks: ", "latency of a call: p50 ",
		"slot lag: primary-c fell 100 slots behind at " + short(lagAt) + "; since then it took ",
		"transactions: ", "duplicates delivered: 0 (",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	m := regexp.MustCompile(`calls: (\d+) in`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no call count:\n%s", r.stdout)
	}
	if n, _ := strconv.Atoi(m[1]); n == 0 {
		t.Fatalf("the demo made no call:\n%s", r.stdout)
	}
	checkDemoTotals(t, r.stdout)
	checkLaggingRow(t, r.stdout)
	if r.stderr != "" {
		t.Errorf("stderr: %q", r.stderr)
	}
}

// TestDemoLaggingEndpointLosesItsShare: once primary-c falls 100 slots
// behind, the pool sees it lagging at its first answer and makes it a last
// resort, tried only when every endpoint in step is busy. In step it takes
// about a third of tier 0's reads (a quarter of all reads, or more); once
// behind, it may still take some under the demo's saturating load, and
// each read that needs a slot it refuses (-32016) and the call retries
// elsewhere, which soon ejects it. Measured over 2 s runs (race detector
// on, six at once): 0.7 % to 11.5 % of the reads after the lag; 10 s runs
// 1.3 % to 6 %. The bound, a fifth, is below the share in step and leaves
// room for a slow machine.
func TestDemoLaggingEndpointLosesItsShare(t *testing.T) {
	// The demo runs on the wall clock, so how many reads follow the lag
	// depends on the machine: a loaded one (the race detector, every
	// package at once, two cores) made 38 in a 2 s run. A run too short
	// to say anything is run again, twice as long, up to 8 s; the share is
	// judged on the first run with 50 reads or more.
	for d := 2 * time.Second; ; d *= 2 {
		r := runCmd(t, "demo", "--duration", d.String(), "--seed", "1")
		r.wantCode(t, exitOK)
		checkLaggingRow(t, r.stdout)
		m := regexp.MustCompile(`slot lag: primary-c fell 100 slots behind at \S+; since then it took (\d+) of (\d+) read attempts \(`).
			FindStringSubmatch(r.stdout)
		if m == nil {
			t.Fatalf("no slot lag line:\n%s", r.stdout)
		}
		took, all := atoi(t, m[1]), atoi(t, m[2])
		if all < 50 {
			if d < 8*time.Second {
				t.Logf("only %d read attempts after the lag in %v: running %v", all, d, 2*d)
				continue
			}
			t.Fatalf("only %d read attempts after the lag in %v: the run is too short to say anything:\n%s", all, d, r.stdout)
		}
		if took*5 > all {
			t.Errorf("the lagging endpoint took %d of the %d reads after it fell behind, more than a fifth:\n%s", took, all, r.stdout)
		}
		t.Logf("the lagging endpoint took %d of the %d reads after it fell behind (%v run)", took, all, d)
		return
	}
}

// checkLaggingRow checks that the demo's table shows primary-c lagging
// about 100 slots behind (the reference and its mark are extrapolated,
// each to the slot, so a slot or two either way), and no other endpoint
// lagging.
func checkLaggingRow(t *testing.T, out string) {
	t.Helper()
	if p := laggingRowProblem(out); p != "" {
		t.Fatalf("%s:\n%s", p, out)
	}
}

// laggingRowProblem says what is wrong with the demo table's lagging rows
// (checkLaggingRow), or "".
func laggingRowProblem(out string) string {
	rows := laggingRows(out)
	if len(rows) != 1 || rows[0][1] != demoPrimaryC || rows[0][3] != "lagging" {
		return fmt.Sprintf("want primary-c alone lagging, got %q", rows)
	}
	if lag, err := strconv.Atoi(rows[0][2]); err != nil || lag < 95 || lag > 105 {
		return fmt.Sprintf("primary-c shown %s slots behind, want about 100", rows[0][2])
	}
	return ""
}

// laggingRows are the demo table's rows whose standing is lagging or
// outlier: name, lag and standing.
func laggingRows(out string) [][]string {
	return regexp.MustCompile(`(?m)^(\S+) .* (-?\d+) (lagging|outlier) +\S+$`).FindAllStringSubmatch(out, -1)
}

// atoi is strconv.Atoi, failing the test on an error.
func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDemoInterrupted runs the demo with its context already ended, as
// Ctrl-C does: exit code 1, "interrupted" on stderr, and a summary that
// still adds up.
func TestDemoInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"demo", "--duration", "300ms", "--callers", "2"}, &out, &errb)
	if code != exitFailed || errb.String() != "solroute demo: interrupted\n" {
		t.Fatalf("exit code %d, stderr %q; want %d and interrupted", code, errb.String(), exitFailed)
	}
	checkDemoTotals(t, out.String())
}

func TestDemoUsageErrors(t *testing.T) {
	tests := []usageCase{
		{"zero duration", []string{"demo", "--duration", "0s"}, "--duration must be positive"},
		{"no callers", []string{"demo", "--callers", "0"}, "--callers must be between 1 and 256"},
		{"too many callers", []string{"demo", "--callers", "100000"}, "--callers must be between 1 and 256"},
		{"bad seed", []string{"demo", "--seed", "-1"}, "--seed: -1 is negative: write a whole number, 0 or more"},
		{"positional", []string{"demo", "now"}, `unexpected argument "now"`},
		{"metrics without a port", []string{"demo", "--metrics", "localhost"}, "--metrics wants host:port"},
		{"metrics without a value", []string{"demo", "--metrics"}, "--metrics"},
	}
	runUsageCases(t, tests)
}

// TestDemoSubscriptionSurvivesAKilledEndpoint: the demo's slot
// subscription, held on three endpoints, delivers every slot once and in
// order across primary-a's WebSocket server being killed, goes on after
// it, and its summary says so in words: the kill, the slots delivered and
// missed (0), the duplicates suppressed, the failovers. A 5 s run: the
// kill at 750ms, the chain's stall at 1.5s, so about two slots come after
// the kill.
func TestDemoSubscriptionSurvivesAKilledEndpoint(t *testing.T) {
	r := runCmd(t, "demo", "--duration", "5s", "--callers", "2", "--seed", "2")
	r.wantCode(t, exitOK)
	for _, want := range []string{
		"  primary-a, primary-b, backup also serve PubSub: one slot subscription on all three; primary-a's is killed at 750ms\n",
		"subscription: one slot subscription, held on primary-a, primary-b, backup at once",
		"  primary-a's WebSocket server was killed at 750ms: its connections cut, new ones refused to the end\n",
		"  delivered first by: ",
		"  no slot comes while the chain stalls",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	m := regexp.MustCompile(`slots delivered: (\d+) \(\d+ to \d+\), (\d+) of them after the kill; missed (\d+), out of order or twice (\d+)\n`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no slots line:\n%s", r.stdout)
	}
	if atoi(t, m[2]) == 0 || atoi(t, m[3]) != 0 || atoi(t, m[4]) != 0 {
		t.Errorf("slots delivered %s, %s after the kill, missed %s, disordered %s: want some after the kill, none missed or disordered", m[1], m[2], m[3], m[4])
	}
	d := regexp.MustCompile(`duplicates suppressed: (\d+) \(`).FindStringSubmatch(r.stdout)
	f := regexp.MustCompile(`failovers: (\d+) \(`).FindStringSubmatch(r.stdout)
	if d == nil || f == nil || atoi(t, d[1]) == 0 || atoi(t, f[1]) == 0 {
		t.Errorf("want duplicates suppressed and failovers above 0:\n%s", r.stdout)
	}
}
