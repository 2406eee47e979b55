package solroute_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/resolve"
)

// slow is a poll interval no verdict in these tests waits for: one
// reached before it came by the notification.
const slow = 30 * time.Second

// confirmOpts are the options of these tests: no preflight (the
// fixtures' ledger runs it, but these are about the verdict).
func confirmOpts(poll time.Duration) confirm.Options {
	return confirm.Options{SkipPreflight: true, PollInterval: poll}
}

// sendAndConfirm runs a SendAndConfirm of tx under s.
func (s *stepper) sendAndConfirm(t *testing.T, maxSteps int, tx txAndHeight, o confirm.Options) (confirm.Result, error) {
	t.Helper()
	return s.run(t, maxSteps, func(ctx context.Context) (confirm.Result, error) {
		return solroute.SendAndConfirmWatched(ctx, s.env.client, tx.tx, tx.lvbh, o, s.wrap)
	})
}

// assertClosed fails unless every watch was closed and the client holds
// no subscription.
func (s *stepper) assertClosed(t *testing.T) {
	t.Helper()
	s.env.settle()
	if _, closed, _, _ := s.counts(); closed != 1 {
		t.Fatalf("%d watches closed, want 1", closed)
	}
	if snap, ok := solroute.SubscribeSnapshot(s.env.client); ok && snap.Subscriptions != 0 {
		t.Fatalf("%d subscriptions left open", snap.Subscriptions)
	}
}

// TestSendAndConfirmNotifiedBeforeAPoll: with polls 30 s apart, the
// verdict comes from the notification (two slots after landing, at
// confirmed), complete: the landing slot and confirmation read for it.
func TestSendAndConfirmNotifiedBeforeAPoll(t *testing.T) {
	e, t0 := newConfirmEnv(t, fixtures.Fault{})
	s := newStepper(e, t0)
	tx := e.tx(1)
	start := e.clock.Now()
	r, err := s.sendAndConfirm(t, 200, tx, confirmOpts(slow))
	if err != nil {
		t.Fatal(err)
	}
	truth := e.ledger.Tx(tx.tx.Signatures[0].String())
	if r.Status != confirm.Landed || r.Slot != truth.Slot || r.Confirmation != rpc.ConfirmationStatusConfirmed || r.Err != nil {
		t.Fatalf("result %+v, truth %+v", r, truth)
	}
	if took := e.clock.Since(start); took >= slow || r.Polls != 2 {
		t.Fatalf("verdict after %v and %d polls: not the notification's (one poll at the send, one read for the slot)", took, r.Polls)
	}
	if n, _, _, _ := s.counts(); n != 1 {
		t.Fatalf("%d notifications", n)
	}
	s.assertClosed(t)
}

// TestSendAndConfirmFailedFromNotification: an on-chain failure comes
// with its error from the notification, before any second poll.
func TestSendAndConfirmFailedFromNotification(t *testing.T) {
	e, t0 := newConfirmEnv(t, fixtures.Fault{})
	s := newStepper(e, t0)
	tx := e.tx(2)
	e.ledger.Fail(tx.tx.Signatures[0].String(), fixtures.Failure{Instruction: 0, Custom: 6001, PassPreflight: true})
	start := e.clock.Now()
	r, err := s.sendAndConfirm(t, 200, tx, confirmOpts(slow))
	if err != nil {
		t.Fatal(err)
	}
	ie, _ := r.Err.(map[string]any)
	if r.Status != confirm.Failed || ie["InstructionError"] == nil || r.Slot != e.ledger.Tx(tx.tx.Signatures[0].String()).Slot {
		t.Fatalf("result %+v", r)
	}
	if took := e.clock.Since(start); took >= slow {
		t.Fatalf("verdict after %v: not the notification's", took)
	}
	s.assertClosed(t)
}

// TestResolveWatches: Resolve of a transaction sent elsewhere is brought
// forward by the notification too.
func TestResolveWatches(t *testing.T) {
	e, t0 := newConfirmEnv(t, fixtures.Fault{})
	s := newStepper(e, t0)
	tx := e.tx(3)
	if _, err := e.client.RPC().SendTransactionWithOpts(subCtx(t), tx.tx, rpc.TransactionOpts{SkipPreflight: true}); err != nil {
		t.Fatal(err)
	}
	start := e.clock.Now()
	r, err := s.run(t, 200, func(ctx context.Context) (confirm.Result, error) {
		return solroute.ResolveWatched(ctx, e.client, tx.tx.Signatures[0], tx.lvbh, confirmOpts(slow), s.wrap)
	})
	if err != nil || r.Status != confirm.Landed || r.Slot == 0 {
		t.Fatalf("result %+v, error %v", r, err)
	}
	if took := e.clock.Since(start); took >= slow {
		t.Fatalf("verdict after %v: not the notification's", took)
	}
	s.assertClosed(t)
}

// TestLostNotificationConcludesByPolling: whatever becomes of the
// subscription (its endpoints lag, handshake slowly, refuse it, answer
// the upgrade 429, drop every socket), the send goes out within SubscribeWait and polling
// concludes.
func TestLostNotificationConcludesByPolling(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before fixtures.PubSubFaults // set before the subscribe
		after  fixtures.PubSubFaults // set once it is live
		drop   bool                  // drop every socket once it is live
	}{
		// Stall once live is left out: 1 run in 10 the settle then waits on a
		// request the stalled legs' servers hold and the engine does not
		// await (reported to internal/pubsub's owner). A lag of 100 slots on
		// every endpoint silences the notification as surely.
		{name: "lagged 100 slots", after: fixtures.PubSubFaults{Lag: 100}},
		{name: "slow handshake", before: fixtures.PubSubFaults{HandshakeDelay: 2 * time.Second}},
		{name: "refused", before: fixtures.PubSubFaults{Refuse: &fixtures.PubSubRefusal{Methods: []string{"signatureSubscribe"}}}},
		{name: "upgrade 429", before: fixtures.PubSubFaults{UpgradeStatus: 429, RetryAfter: "5"}},
		{name: "dropped", drop: true, after: fixtures.PubSubFaults{UpgradeStatus: 429}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, t0 := newConfirmEnv(t, fixtures.Fault{})
			s := newStepper(e, t0)
			s.stepSubscribe = tc.before != (fixtures.PubSubFaults{}) // the subscribe meets the fault
			for _, n := range e.names {
				e.cluster.PubSub(n).SetFaults(tc.before)
			}
			tx := e.tx(4)
			o := confirmOpts(0)
			start := e.clock.Now()
			var faulted bool
			o.OnPoll = func(r confirm.Result) {
				if r.Polls != 1 || faulted {
					return
				}
				faulted = true // after the send's first poll: the subscription, if any, is live
				e.settle()     // on every leg
				for _, n := range e.names {
					ps := e.cluster.PubSub(n)
					if tc.drop {
						ps.Drop()
					}
					if tc.after != (fixtures.PubSubFaults{}) {
						ps.SetFaults(tc.after)
					}
				}
			}
			r, err := s.sendAndConfirm(t, 400, tx, o)
			if err != nil {
				t.Fatal(err)
			}
			truth := e.ledger.Tx(tx.tx.Signatures[0].String())
			if r.Status != confirm.Landed || r.Slot != truth.Slot || truth.Arrivals != 1 {
				t.Fatalf("result %+v, truth %+v", r, truth)
			}
			notices, _, subErr, _ := s.counts()
			if notices != 0 {
				t.Fatalf("%d notifications: the fault let one through", notices)
			}
			if s.subscribedAt.Sub(start) > resolve.SubscribeWait {
				t.Fatalf("the send waited %v for the subscribe (error %v)", s.subscribedAt.Sub(start), subErr)
			}
			t.Logf("subscribe error %v; verdict after %d polls, %v", subErr, r.Polls, e.clock.Since(start))
			for _, n := range e.names {
				e.cluster.PubSub(n).SetFaults(fixtures.PubSubFaults{})
			}
			// Release the handshakes still held (slow handshake): the
			// engine's Close waits for a dial in its upgrade (reported to
			// internal/pubsub's owner).
			e.steps(6)
			s.assertClosed(t)
		})
	}
}

// TestExpiryOnlyByPolling: a transaction that never lands is expired by
// the polls' quorum with its subscription live all along: a notification
// never concludes expiry.
func TestExpiryOnlyByPolling(t *testing.T) {
	e, t0 := newConfirmEnv(t, fixtures.Fault{})
	s := newStepper(e, t0)
	tx := e.txAged(5, 140) // 10 blocks of validity left
	e.ledger.Drop(tx.tx.Signatures[0].String(), math.MaxInt)
	r, err := s.sendAndConfirm(t, 400, tx, confirmOpts(0))
	if err != nil || r.Status != confirm.Expired || r.BlockHeight <= tx.lvbh {
		t.Fatalf("result %+v, error %v", r, err)
	}
	if n, _, subErr, _ := s.counts(); n != 0 || subErr != nil {
		t.Fatalf("%d notifications, subscribe error %v", n, subErr)
	}
	s.assertClosed(t)
}

// TestAmbiguousSendThenNotification: every endpoint acts on the send and
// resets the connection before answering; the notification says it
// landed, and it was sent once.
func TestAmbiguousSendThenNotification(t *testing.T) {
	e, t0 := newConfirmEnv(t, fixtures.Fault{Kind: fixtures.ResetAfterRead})
	s := newStepper(e, t0)
	tx := e.tx(6)
	start := e.clock.Now()
	r, err := s.sendAndConfirm(t, 200, tx, confirmOpts(slow))
	if err != nil {
		t.Fatal(err)
	}
	truth := e.ledger.Tx(tx.tx.Signatures[0].String())
	if !errors.Is(r.SendErr, solroute.ErrAmbiguousDispatch) || r.Status != confirm.Landed || r.Slot != truth.Slot || truth.Arrivals != 1 {
		t.Fatalf("result %+v, truth %+v", r, truth)
	}
	if took := e.clock.Since(start); took >= slow {
		t.Fatalf("verdict after %v: not the notification's", took)
	}
	s.assertClosed(t)
}

// TestRefusedSendClosesTheSubscription: Client.SendAndConfirm subscribes
// before the send; a send refused before dispatch (preflight) returns its
// error and leaves no subscription.
func TestRefusedSendClosesTheSubscription(t *testing.T) {
	e, _ := newConfirmEnv(t, fixtures.Fault{})
	tx := e.tx(7)
	e.ledger.Fail(tx.tx.Signatures[0].String(), fixtures.Failure{Instruction: 0, Custom: 1})
	r, err := e.client.SendAndConfirm(subCtx(t), tx.tx, tx.lvbh, confirm.Options{PreflightCommitment: rpc.CommitmentProcessed})
	if err == nil || r.Status != confirm.Unknown {
		t.Fatalf("result %+v, error %v: want the preflight refusal", r, err)
	}
	e.settle()
	subscribes := 0
	for _, n := range e.names {
		subscribes += e.cluster.PubSub(n).Stats().Subscribes["signatureSubscribe"]
	}
	if subscribes == 0 {
		t.Fatal("no signatureSubscribe before the send")
	}
	if snap, ok := solroute.SubscribeSnapshot(e.client); !ok || snap.Subscriptions != 0 {
		t.Fatalf("subscriptions left: %+v", snap)
	}
}

// TestSendAndConfirmDurableNonce: through the front door, a durable-nonce
// transaction is told from its bytes (lastValidBlockHeight 0), its
// landing comes from the notification as any other's, the Result names
// its nonce, and a height given for it is refused before any request.
func TestSendAndConfirmDurableNonce(t *testing.T) {
	e, t0 := newConfirmEnv(t, fixtures.Fault{})
	s := newStepper(e, t0)
	acct, nonce := fixturedata.NonceAccount(1), solana.Hash{1}
	if _, _, err := e.ledger.Apply(fixtures.Change{Accounts: map[string]*fixtures.AccountState{
		acct.String(): {Lamports: 1_447_680, Data: fixturedata.NonceAccountData(1, nonce)}}}); err != nil {
		t.Fatal(err)
	}
	tx, err := fixturedata.NonceTransaction(1, 1, nonce)
	if err != nil {
		t.Fatal(err)
	}
	ended, cancel := context.WithCancel(context.Background()) // input let through would resolve at once, to unknown
	cancel()
	if _, err := e.client.SendAndConfirm(ended, tx, 1100, confirm.Options{}); err == nil || !strings.Contains(err.Error(), "pass 0") {
		t.Fatalf("a height for a durable-nonce transaction: %v", err)
	}
	start := e.clock.Now()
	r, err := s.sendAndConfirm(t, 200, txAndHeight{tx, 0}, confirmOpts(slow))
	if err != nil {
		t.Fatal(err)
	}
	truth := e.ledger.Tx(tx.Signatures[0].String())
	if r.Status != confirm.Landed || r.Slot != truth.Slot || !r.NonceAccount.Equals(acct) || r.Nonce != nonce || truth.Arrivals != 1 {
		t.Fatalf("result %+v, truth %+v", r, truth)
	}
	if took := e.clock.Since(start); took >= slow {
		t.Fatalf("verdict after %v: not the notification's", took)
	}
	s.assertClosed(t)
}
