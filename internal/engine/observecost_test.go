package engine_test

import (
	"context"
	"testing"

	"github.com/jonboulle/clockwork"

	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/transport"
)

// TestObservedCallClockReads: observing a call costs one clock reading,
// its end: the call's start instant (CallInfo.Start) is the one its
// deadline is measured from, not a second reading (it was two).
func TestObservedCallClockReads(t *testing.T) {
	clock := &countingClock{Clock: clockwork.NewRealClock()}
	c := costClient(t, clock)
	plain := clockReadsPerCall(t, c, clock)
	c.Observe(engine.AttemptFunc(func(context.Context, string, transport.Attempt) {}))
	observed := clockReadsPerCall(t, c, clock)
	t.Logf("clock readings per call: %d, %d observed", plain, observed)
	if observed > plain+1 {
		t.Fatalf("an observed call read the clock %d times, %d more than unobserved; want at most 1 more", observed, observed-plain)
	}
}
