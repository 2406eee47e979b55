package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/retrypolicy"
)

// TestFastEndpointErrorsLoseTheDraws (issue 20, item 7): in one tier, a
// healthy peer answering in 3 ms and a peer answering every read at once
// with a JSON-RPC error that is the endpoint's (docs/errors.md). Such an
// answer fails over (the read is retried on the healthy peer at once) and
// costs its endpoint a failure's penalty in the balancing, so the fast
// failing peer draws a small share and the calls succeed. (Before, such
// errors were the caller's answer, timed as fast: the failing peer drew
// almost every read, and almost every call failed.)
func TestFastEndpointErrorsLoseTheDraws(t *testing.T) {
	const calls = 1200
	for _, tc := range []struct {
		code int
		gap  time.Duration // between two calls: back to back, or a minute in all
	}{{-32603, 0}, {-32010, 0}, {-32011, 0}, {-32603, 50 * time.Millisecond}} {
		code := tc.code
		t.Run(fmt.Sprintf("%d/gap=%v", code, tc.gap), func(t *testing.T) {
			good, bad := member("good", 0), member("bad", 0)
			good.Options.Script = fixtures.Always(fixtures.Fault{Delay: 3 * time.Millisecond})
			bad.Options.Script = fixtures.Always(fixtures.RPC(code))
			e := newEnvOneClock(t, []fixtures.Member{good, bad}, conf{})
			failed := 0
			for i := range calls {
				if err := e.answerRead(t, i); err != nil {
					failed++
					if ce := callErr(t, err); ce.Cause != retrypolicy.RPCEndpoint {
						t.Fatalf("call %d: %v, want an endpoint error", i, err)
					}
				}
				e.clock.Advance(tc.gap)
			}
			drawn := e.server("bad").Stats().Calls["getBalance"]
			share := float64(drawn) / float64(drawn+e.server("good").Stats().Calls["getBalance"])
			t.Logf("code %d, %v between calls: the failing peer drew %d of %d attempts (%.2f %%); %d of %d calls failed",
				code, tc.gap, drawn, drawn+e.server("good").Stats().Calls["getBalance"], 100*share, failed, calls)
			if share > 0.02 {
				t.Errorf("the failing peer drew %.2f %% of the reads, want at most 2 %%", 100*share)
			}
			if failed > calls/100 {
				t.Errorf("%d of %d calls failed, want at most 1 %%", failed, calls)
			}
		})
	}
}

// answerRead makes read i through e's client and returns its error: when
// the call reaches the good server (which answers after 3 ms of the
// shared clock) it advances the clock by 3 ms, once that server and the
// attempt wait on it.
func (e *env) answerRead(t *testing.T, i int) error {
	t.Helper()
	n := e.server("good").Stats().Requests
	done := async(func() error { _, err := getBalance(context.Background(), e.client); return err })
	ctx, cancel := context.WithCancel(guardCtx(t))
	reached := async(func() error { return e.server("good").WaitRequests(ctx, n+1) })
	select {
	case err := <-done:
		cancel()
		<-reached
		return err
	case err := <-reached:
		cancel()
		if err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
	}
	// The attempt's timer and the server's delay.
	if err := e.clock.BlockUntilContext(guardCtx(t), 2); err != nil {
		t.Fatalf("read %d: %v", i, err)
	}
	e.clock.Advance(3 * time.Millisecond)
	return wait(t, done)
}
