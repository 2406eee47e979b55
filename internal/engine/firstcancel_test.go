package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/solroute/solroute/retrypolicy"
)

// armedTimer is an attempt's timer armed on a fake clock, with the
// cancel context it cancels.
func armedTimer(t *testing.T) (*attemptTimer, context.Context) {
	t.Helper()
	clock := clockwork.NewFakeClock()
	c := &Engine{clock: clock}
	at := c.newAttemptTimer(&callState{deadline: clock.Now().Add(time.Minute)}, clock.Now(), time.Second)
	ctx, cancel := context.WithCancelCause(context.Background())
	t.Cleanup(func() { cancel(nil) })
	at.arm(cancel)
	return at, ctx
}

// TestFirstCancelEitherOrder: a hedge's cancel reaches the first attempt
// whether it comes before the attempt handed its timer over or after,
// with errSuperseded (which classifyErr reads as Canceled), and never
// once the attempt ended.
func TestFirstCancelEitherOrder(t *testing.T) {
	for _, tc := range []struct {
		name      string
		run       func(f *firstCancel, at *attemptTimer)
		wantCause error
	}{
		{"cancel then set", func(f *firstCancel, at *attemptTimer) { f.cancel(); f.set(at) }, errSuperseded},
		{"set then cancel", func(f *firstCancel, at *attemptTimer) { f.set(at); f.cancel() }, errSuperseded},
		{"set, attempt ended, cancel", func(f *firstCancel, at *attemptTimer) { f.set(at); at.stop(); f.cancel() }, nil},
		{"set, no cancel", func(f *firstCancel, at *attemptTimer) { f.set(at) }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at, ctx := armedTimer(t)
			var f firstCancel
			tc.run(&f, at)
			if got := context.Cause(ctx); !errors.Is(got, tc.wantCause) || (tc.wantCause == nil && got != nil) {
				t.Fatalf("attempt context's cause %v, want %v", got, tc.wantCause)
			}
			if tc.wantCause != nil {
				if got := classifyErr(context.Background(), ctx, context.Cause(ctx)); got != retrypolicy.Canceled {
					t.Fatalf("a superseded attempt classified %v, want Canceled", got)
				}
			}
		})
	}
}
