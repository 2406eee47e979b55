package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/transport"
)

// blockingOut is a caller's value whose decode signals and waits: the
// moment a follower decodes its result, made observable.
type blockingOut struct {
	decoding chan<- int
	release  <-chan struct{}
}

// UnmarshalJSON sends len(p) on decoding, then waits for release.
func (b *blockingOut) UnmarshalJSON(p []byte) error {
	b.decoding <- len(p)
	<-b.release
	return nil
}

// heldFlight runs a leader and one follower of getLatestBlockhash on an
// engine with a response budget of budget bytes (hedging after hedge:
// see hedgeModes), and returns once the leader returned and the follower
// is decoding its result, with the result's length; close release to let
// it finish, then read its error from follower.
func heldFlight(t *testing.T, budget int64, hedge hedgeMode) (h *holdServer, e *coalesceEnv, held int, release chan struct{}, follower chan error) {
	h = newHoldServer(t, 4242)
	s := transport.DefaultSettings()
	s.MaxResponseBytes, s.ResponseBudgetBytes, s.HedgeAfter = 200, budget, hedge.after
	e = newCoalesceEnv(t, h, s, engine.Options{})
	ctx := context.Background()
	leader := make(chan error, 1)
	go func() {
		var raw json.RawMessage
		leader <- e.client.CallForInto(ctx, &raw, "getLatestBlockhash", blockhashParams())
	}()
	h.waitArrivals(t, 1)
	decoding, release, follower := make(chan int, 1), make(chan struct{}), make(chan error, 1)
	go func() {
		follower <- e.client.CallForInto(ctx, &blockingOut{decoding: decoding, release: release}, "getLatestBlockhash", blockhashParams())
	}()
	e.joins.wait(t, 1)
	h.open()
	if err := <-leader; err != nil {
		t.Fatal(err)
	}
	return h, e, <-decoding, release, follower
}

// TestCoalescedCopyNeverPastTheBudget: README "The client never holds
// more than response_budget_bytes of response bodies at once". With a
// budget that holds one answer (~150 bytes) and not two, another answer
// is refused (ErrBusy) while a follower decodes the result it was handed,
// whether that is a copy the flight keeps or the follower's own answer.
func TestCoalescedCopyNeverPastTheBudget(t *testing.T) {
	for _, m := range hedgeModes {
		t.Run(m.name, func(t *testing.T) {
			_, e, held, release, follower := heldFlight(t, 200, m)
			used := e.client.ResponseBudget().Used
			var other *rpc.GetLatestBlockhashResult
			err := e.client.CallForInto(context.Background(), &other, "getLatestBlockhash", []any{rpc.M{"commitment": "finalized"}})
			close(release)
			if ferr := <-follower; ferr != nil {
				t.Fatal(ferr)
			}
			if !errors.Is(err, engine.ErrBusy) {
				t.Fatalf("while a follower decoded %d bytes (budget used: %d of 200), another answer got %v: want ErrBusy", held, used, err)
			}
			if u := e.client.ResponseBudget(); u.Used != 0 || u.Refused != 1 {
				t.Fatalf("budget %+v after every call returned, want 0 used and 1 refused (the other answer)", u)
			}
		})
	}
}

// TestCoalescedCopyChargedUntilItsLastFollowerDecoded: the copy of the
// result a flight keeps for its followers is charged to the budget,
// exactly its length, until the last follower has decoded it; where the
// body and the copy cannot both be held (unhedged, budget 200: the
// leader's body still charged when it copies), the follower asks on its
// own instead of taking the budget past its limit.
func TestCoalescedCopyChargedUntilItsLastFollowerDecoded(t *testing.T) {
	for _, m := range hedgeModes {
		for _, budget := range []int64{200, 1000} {
			t.Run(fmt.Sprintf("%s/budget %d", m.name, budget), func(t *testing.T) {
				shared := budget == 1000 || m.after != 0 // else: the body and its copy do not fit together
				h, e, held, release, follower := heldFlight(t, budget, m)
				used := e.client.ResponseBudget().Used
				close(release)
				if err := <-follower; err != nil {
					t.Fatal(err)
				}
				n := h.count("getLatestBlockhash")
				switch {
				case shared && (used != int64(held) || n != 1):
					t.Fatalf("while the follower decoded the %d bytes shared, the budget held %d (%d requests): want exactly the copy, 1 request", held, used, n)
				case !shared && (used < int64(held) || used > budget || n != 2):
					// Its own answer's body, charged as it is read: at least the result.
					t.Fatalf("while the follower decoded %d bytes, the budget held %d of %d (%d requests): want its own answer, 2 requests", held, used, budget, n)
				}
				if u := e.client.ResponseBudget(); u.Used != 0 || u.Refused != 0 {
					t.Fatalf("budget %+v after both returned, want nothing held and nothing refused", u)
				}
			})
		}
	}
}
