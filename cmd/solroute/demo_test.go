package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestDemoShortRun(t *testing.T) {
	r := runCmd(t, "demo", "--duration", "300ms", "--callers", "4", "--seed", "3")
	r.wantCode(t, exitOK)
	for _, want := range []string{
		"solroute demo: 4 fake endpoints on loopback, 4 callers, 300ms, seed 3",
		"ENDPOINT", demoPrimaryA, demoPrimaryB, demoBackup, demoLastResort,
		"calls: ", "success rate: ", "retries: ", "fallbacks by tier: ", "latency: p50 ",
		"transactions sent: ", "duplicates delivered: 0\n", "ambiguous outcomes reported: ",
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
	if r.stderr != "" {
		t.Errorf("stderr: %q", r.stderr)
	}
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
		{"bad seed", []string{"demo", "--seed", "-1"}, `invalid value "-1" for flag --seed`},
		{"positional", []string{"demo", "now"}, `unexpected argument "now"`},
	}
	runUsageCases(t, tests)
}
