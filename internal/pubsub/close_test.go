package pubsub_test

import (
	"testing"
	"time"

	"github.com/solroute/solroute/fixtures"
)

// TestCloseDuringHeldHandshake: Close returns while an endpoint holds
// an upgrade unanswered (the loop that expires dials is gone by then, and
// the upgrade's answer is read without a context): the dial is cut.
func TestCloseDuringHeldHandshake(t *testing.T) {
	held := fixtures.PubSubOptions{Faults: fixtures.PubSubFaults{HandshakeDelay: time.Hour}}
	e := newEnv(t, []member{{name: "a"}, {name: "b", ps: held}}, redundancy(1))
	if d := e.eng.Activity().Dialing["b"]; d != 1 {
		t.Fatalf("b: %d dials waiting for their upgrade, want 1", d)
	}
	done := make(chan struct{})
	go func() {
		e.eng.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(watchdog):
		t.Fatal("Close still waits for b's upgrade")
	}
}
