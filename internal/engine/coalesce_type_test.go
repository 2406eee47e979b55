package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// hedgeModes are the two ways a leader decodes: straight into its own
// value (no hedging), or into a raw result first (hedge_after set; the
// fake clock never reaches it, so no hedge is sent).
var hedgeModes = []hedgeMode{{"unhedged", 0}, {"hedging", time.Second}}

// hedgeMode is one of hedgeModes: its name and HedgeAfter.
type hedgeMode struct {
	name  string
	after time.Duration
}

// TestCoalesceLeaderDecodeErrorIsItsOwn: plans/018 §4 "a result that does
// not fit one caller's type is that caller's InvalidResponse, no one
// else's". The leader decodes into a type the answer does not fit; a
// follower that joined its flight, with a type that fits, gets the
// answer, from the one request.
func TestCoalesceLeaderDecodeErrorIsItsOwn(t *testing.T) {
	for _, m := range hedgeModes {
		t.Run(m.name, func(t *testing.T) {
			h := newHoldServer(t, 4242)
			s := transport.DefaultSettings()
			s.HedgeAfter = m.after
			e := newCoalesceEnv(t, h, s, engine.Options{})
			ctx := context.Background()
			leaderErr := make(chan error, 1)
			go func() {
				var wrong []int // an object result never decodes into a slice
				leaderErr <- e.client.CallForInto(ctx, &wrong, "getLatestBlockhash", blockhashParams())
			}()
			h.waitArrivals(t, 1)
			type res struct {
				out *rpc.GetLatestBlockhashResult
				err error
			}
			follower := make(chan res, 1)
			go func() {
				out, err := latestBlockhash(ctx, e.client)
				follower <- res{out, err}
			}()
			e.joins.wait(t, 1)
			h.open()
			var ce *transport.CallError
			if err := <-leaderErr; !errors.As(err, &ce) || ce.Cause != retrypolicy.InvalidResponse {
				t.Fatalf("leader: %v, want its own InvalidResponse", err)
			}
			r := <-follower
			if r.err != nil || r.out == nil || r.out.Context.Slot != 4242 {
				t.Fatalf("follower with a type that fits got %+v, %v: want the answer", r.out, r.err)
			}
			if n := h.count("getLatestBlockhash"); n != 1 {
				t.Fatalf("%d requests, want the one shared", n)
			}
			if u := e.client.ResponseBudget().Used; u != 0 {
				t.Fatalf("%d bytes of the budget still held after every caller returned", u)
			}
		})
	}
}
