package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
)

// The cut rule's cases (issue 20): a server answers at slowAnswer, under
// a caller's deadline of cutBudget, whose half (the fixed rule's bound)
// comes first.
const (
	slowAnswer = 130 * time.Millisecond
	cutBudget  = 200 * time.Millisecond
)

// slowCall starts method (a read, or a send) under a cutBudget context and
// waits until endpoint first has it and the clock has waiters timers.
func slowCall(t *testing.T, e *env, method, first string, waiters int) (<-chan error, *solana.Signature) {
	t.Helper()
	ctx := withClockTimeout(t, e.clock, cutBudget)
	var sig solana.Signature
	done := async(func() error {
		if method == "sendTransaction" {
			params, _ := signedTx(t, 500)
			return e.client.CallForInto(ctx, &sig, method, params)
		}
		_, err := getBalance(ctx, e.client)
		return err
	})
	if err := e.server(first).WaitRequests(guardCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	if err := e.clock.BlockUntilContext(guardCtx(t), waiters); err != nil {
		t.Fatal(err)
	}
	return done, &sig
}

// TestNoCutThatNothingCanFollow: with one endpoint, a read or a send
// answered at 130 ms under a 200 ms deadline is not cut at 100 ms (half the
// budget): nothing could follow the cut but the same request to the same
// endpoint, and the answer comes in time. Sent once, answered, not
// ambiguous.
func TestNoCutThatNothingCanFollow(t *testing.T) {
	for _, method := range []string{"getBalance", "sendTransaction"} {
		t.Run(method, func(t *testing.T) {
			a := member("a", 0)
			a.Options.Script = fixtures.Always(fixtures.Fault{Delay: slowAnswer})
			rec := newRecorder()
			e := newEnvOneClock(t, []fixtures.Member{a}, conf{OnAttempt: rec.on})
			// The context's timer, the attempt's and the server's latency.
			done, _ := slowCall(t, e, method, "a", 3)
			e.clock.Advance(cutBudget / 2)
			e.clock.Advance(slowAnswer - cutBudget/2)
			if err := wait(t, done); err != nil {
				t.Fatalf("%s answered at %v under a %v deadline: %v", method, slowAnswer, cutBudget, err)
			}
			if n := e.server("a").Stats().Calls[method]; n != 1 {
				t.Fatalf("sent %d times", n)
			}
			if as := rec.drain(); len(as) != 1 || as[0].Duration != slowAnswer || as[0].Timeout != cutBudget {
				t.Fatalf("attempts %+v: want one, bounded by the whole deadline", as)
			}
		})
	}
}

// TestCutWhenAnotherEndpointCanTakeIt: with a second endpoint, a read
// that has no answer at half the budget is still cut there and served by
// the other; a send the first endpoint read is not (it could not be sent
// elsewhere): its answer at 130 ms is the call's.
func TestCutWhenAnotherEndpointCanTakeIt(t *testing.T) {
	t.Run("read", func(t *testing.T) {
		a := member("a", 0)
		a.Options.Script = fixtures.Always(fixtures.Fault{Delay: slowAnswer})
		rec := newRecorder()
		e := newEnvOneClock(t, []fixtures.Member{a, member("b", 1)}, conf{OnAttempt: rec.on})
		done, _ := slowCall(t, e, "getBalance", "a", 3)
		e.clock.Advance(cutBudget / 2)
		if err := wait(t, done); err != nil {
			t.Fatal(err)
		}
		as := rec.drain()
		if len(as) != 2 || as[0].Endpoint != "a" || as[0].Duration != cutBudget/2 || as[1].Endpoint != "b" || as[1].Cause != 0 {
			t.Fatalf("attempts %+v: want a cut at %v, then b", as, cutBudget/2)
		}
	})
	t.Run("send", func(t *testing.T) {
		a := member("a", 0)
		a.Options.Script = fixtures.Always(fixtures.Fault{Delay: slowAnswer})
		rec := newRecorder()
		e := newEnvOneClock(t, []fixtures.Member{a, member("b", 1)}, conf{OnAttempt: rec.on})
		done, sig := slowCall(t, e, "sendTransaction", "a", 3)
		e.clock.Advance(cutBudget / 2)
		// At the cut the request was written: the timer waits for the
		// deadline instead (a fresh timer: the context's, the server's
		// latency and it).
		if err := e.clock.BlockUntilContext(guardCtx(t), 3); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(slowAnswer - cutBudget/2)
		err := wait(t, done)
		if err != nil || sig.IsZero() || errors.Is(err, engine.ErrAmbiguousDispatch) {
			t.Fatalf("send answered at %v: %v (signature %s)", slowAnswer, err, sig)
		}
		if n := e.server("a").Stats().Calls["sendTransaction"] + e.server("b").Stats().Calls["sendTransaction"]; n != 1 {
			t.Fatalf("delivered %d times", n)
		}
		if as := rec.drain(); len(as) != 1 || as[0].Duration != slowAnswer || as[0].Timeout != cutBudget {
			t.Fatalf("attempts %+v: want one, run on to the deadline", as)
		}
	})
	t.Run("send hanging", func(t *testing.T) {
		a := member("a", 0)
		a.Options.Script = fixtures.Always(fixtures.Fault{Kind: fixtures.Hang})
		e := newEnvOneClock(t, []fixtures.Member{a, member("b", 1)}, conf{})
		done, _ := slowCall(t, e, "sendTransaction", "a", 2)
		e.clock.Advance(cutBudget / 2)
		pendingAfter(t, e, done, 2, cutBudget/2-time.Millisecond)
		e.clock.Advance(time.Millisecond)
		err := wait(t, done)
		if !errors.Is(err, engine.ErrAmbiguousDispatch) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v: want ambiguous at the caller's deadline", err)
		}
		if n := e.server("b").Stats().Calls["sendTransaction"]; n != 0 {
			t.Fatalf("b got the send %d times", n)
		}
	})
}
