package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/solroute/solroute"
)

// TestWatchOverflowGapLineSaysOverflow: docs/subscriptions.md and the GapError
// doc give two reasons for a gap: every endpoint failed ("failover"), or
// a slow reader let its buffer overflow ("overflow"). watch prints the
// same explanation for both: an overflow gap line says "every endpoint
// holding the stream failed", which did not happen.
func TestWatchOverflowGapLineSaysOverflow(t *testing.T) {
	var out bytes.Buffer
	w := &watcher{env: &env{stdout: &out}, target: &watchTarget{kind: "logs"}, first: map[string]uint64{}}
	w.print(watchLine{gap: &solroute.GapError{From: 100, To: 140, Reason: "overflow"}})
	line := out.String()
	if strings.Contains(line, "every endpoint holding the stream failed") || !strings.Contains(line, "read slower") {
		t.Errorf("overflow gap printed as an endpoint failure:\n%s", line)
	}
	out.Reset()
	w.print(watchLine{gap: &solroute.GapError{From: 100, To: 140, Reason: "failover"}})
	if line := out.String(); !strings.Contains(line, "every endpoint holding the stream failed") {
		t.Errorf("failover gap line:\n%s", line)
	}
}
