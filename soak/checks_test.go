package soak

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// The checks of TestSoak must be able to fail: these tests feed them
// violations on purpose.

func TestMaxInWindow(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms ...int) []time.Time {
		ts := make([]time.Time, len(ms))
		for i, m := range ms {
			ts[i] = t0.Add(time.Duration(m) * time.Millisecond)
		}
		return ts
	}
	for _, tt := range []struct {
		ts   []time.Time
		want int
	}{
		{nil, 0},
		{at(0), 1},
		{at(0, 999), 2},
		{at(0, 1000), 1},
		{at(0, 10, 20, 1005, 1015), 3},
		{at(0, 500, 900, 1400, 1450, 1499), 5},
		{at(0, 500, 900, 1400, 1450, 1500), 4},
	} {
		if got := maxInWindow(tt.ts, time.Second); got != tt.want {
			t.Errorf("maxInWindow(%v) = %d, want %d", tt.ts, got, tt.want)
		}
	}
}

func TestSecretIn(t *testing.T) {
	if m := secretIn("transport: t0-a: dial http://x/" + markPath + "-t0-a"); m != markPath {
		t.Errorf("secretIn missed the path marker: %q", m)
	}
	if m := secretIn("transport: t0-a: connection refused"); m != "" {
		t.Errorf("secretIn found %q in a clean text", m)
	}
}

// TestCheckSendsCatchesDuplicate delivers one signed transaction to two
// endpoints behind the client's back: the send check must see it acted on
// twice.
func TestCheckSendsCatchesDuplicate(t *testing.T) {
	s := newSoak(t, 7, sendEvery, 1)
	body := `{"jsonrpc":"2.0","id":1,"method":"sendTransaction","params":["` + s.txs[0] + `",{"encoding":"base64"}]}`
	for _, name := range []string{"t0-a", "t0-b"} {
		resp, err := http.Post(s.cluster.Server(name).URL(), "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	http.DefaultClient.CloseIdleConnections()
	s.sends[0] = sendResult{made: true, ok: true}
	s.checkSends()
	if s.bad.n == 0 {
		t.Fatal("checkSends accepted a transaction acted on twice")
	}
	if !strings.Contains(s.bad.first[0], "acted on 2 times") {
		t.Errorf("checkSends reported %q, want the double delivery", s.bad.first[0])
	}
}

// TestCheckDeadlinesCatchesLateCall feeds a call that returned a second
// after its deadline, with no stall around it.
func TestCheckDeadlinesCatchesLateCall(t *testing.T) {
	s := &soak{t: t}
	now := time.Now()
	for i := range 1000 {
		s.beats = append(s.beats, now.Add(time.Duration(i)*heartbeatEvery))
	}
	s.done.Store(1)
	s.late = []lateCall{{deadline: now.Add(10 * time.Millisecond), end: now.Add(time.Second + 10*time.Millisecond), what: "call 1"}}
	s.checkDeadlines()
	if s.bad.n != 1 {
		t.Fatalf("checkDeadlines found %d violations, want 1", s.bad.n)
	}
}
