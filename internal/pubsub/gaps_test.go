package pubsub_test

import (
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/pubsub"
)

// TestGapAfterFailover: program and logs notifications cannot be read
// back, so when the only leg is cut the next one delivers a gap event
// naming the slot range that may be missing (Recv: a *GapError, errors.Is
// ErrGap), and the subscription goes on with what follows.
func TestGapAfterFailover(t *testing.T) {
	for _, kind := range []string{"program", "logs"} {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t, twoMembers(), redundancy(1))
			owner := key(40)
			recv := subscribeForGap(t, e, kind, owner)
			change := func(lamports uint64) {
				_, _, err := e.ledger.Apply(fixtures.Change{Mentions: []string{owner.String()},
					Accounts: map[string]*fixtures.AccountState{key(41).String(): {Lamports: lamports, Owner: owner.String()}}})
				if err != nil {
					t.Fatal(err)
				}
			}
			change(1)
			e.steps(4)
			if n, err := recv(); err != nil || n == 0 {
				t.Fatalf("before the cut: %d, %v", n, err)
			}
			cut := e.cluster.Server("a").Slot("processed")
			e.ps[holders(e)[0]].Drop()
			e.steps(6)
			_, err := recv()
			var gap *pubsub.GapError
			if !errors.As(err, &gap) || !errors.Is(err, pubsub.ErrGap) || gap.Reason != "failover" {
				t.Fatalf("after the cut: %v, want a failover gap", err)
			}
			if gap.From > cut || gap.To < cut || gap.From > gap.To {
				t.Errorf("gap %d..%d does not cover the cut at slot %d", gap.From, gap.To, cut)
			}
			change(2)
			e.steps(4)
			if n, err := recv(); err != nil || n == 0 {
				t.Errorf("after the gap: %d, %v", n, err)
			}
			if e.eng.Snapshot().Gaps != 1 {
				t.Errorf("gaps %d, want 1", e.eng.Snapshot().Gaps)
			}
		})
	}
}

// subscribeForGap subscribes to the owner's program or to the logs
// mentioning it and returns a Recv that does not wait: one notification's
// slot, or its error (a gap), or 0 with no error when none is buffered.
func subscribeForGap(t *testing.T, e *env, kind string, owner solana.PublicKey) func() (uint64, error) {
	t.Helper()
	if kind == "program" {
		sub, err := e.eng.ProgramSubscribe(ctxT(t), owner, pubsub.ProgramOptions{Commitment: rpc.CommitmentConfirmed})
		if err != nil {
			t.Fatal(err)
		}
		return func() (uint64, error) { return recvNow(t, sub) }
	}
	sub, err := e.eng.LogsSubscribe(ctxT(t), pubsub.LogsFilter{Mentions: &owner}, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	return func() (uint64, error) { return recvNow(t, sub) }
}

// recvNow is Recv on a context already done: what is buffered, first.
func recvNow[T any](t *testing.T, s *pubsub.Subscription[T]) (uint64, error) {
	t.Helper()
	n, err := s.Next(ctxDone())
	if err != nil {
		return 0, nil // nothing buffered
	}
	if n.Gap != nil {
		return 0, n.Gap
	}
	return n.Slot, nil
}
