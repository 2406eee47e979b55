package resolve_test

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/resolve"
)

// scripted is a Watch that hands over its notices (nil: none; it then
// waits), or ends with end once they are out.
type scripted struct {
	mu       sync.Mutex
	notices  []resolve.Notice
	end      error
	closed   int
	watched  rpc.CommitmentType
	watchErr error // the Watcher's error
}

func (s *scripted) watcher(_ context.Context, _ solana.Signature, c rpc.CommitmentType) (resolve.Watch, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watched = c
	if s.watchErr != nil {
		return nil, s.watchErr
	}
	return s, nil
}

func (s *scripted) Next(ctx context.Context) (resolve.Notice, error) {
	s.mu.Lock()
	if len(s.notices) > 0 {
		n := s.notices[0]
		s.notices = s.notices[1:]
		s.mu.Unlock()
		return n, nil
	}
	end := s.end
	s.mu.Unlock()
	if end != nil {
		return resolve.Notice{}, end
	}
	<-ctx.Done()
	return resolve.Notice{}, context.Cause(ctx)
}

func (s *scripted) Close() {
	s.mu.Lock()
	s.closed++
	s.mu.Unlock()
}

// TestNoticeAloneIsAVerdict: a notification no read endpoint can show
// yet (here: none ever will) concludes at once, from what it says: its
// error, the commitment it was for, no slot.
func TestNoticeAloneIsAVerdict(t *testing.T) {
	ch := newChain(t, node{name: "a"}, node{name: "b"})
	tx, lvbh := ch.tx(40, 0)
	ch.ledger.Drop(tx.Signatures[0].String(), math.MaxInt)
	w := &scripted{notices: []resolve.Notice{{Err: map[string]any{"InstructionError": []any{0.0, "x"}}, Endpoint: "a", Slot: 1010}}}
	o := skip
	r, err := ch.drive(&o, 20, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirmWith(context.Background(), ch.tc, w.watcher, tx, lvbh, o)
	})
	if err != nil || r.Status != confirm.Failed || r.Slot != 0 || r.Confirmation != rpc.ConfirmationStatusConfirmed || r.Polls != 2 {
		t.Fatalf("result %+v, error %v", r, err)
	}
	if w.closed != 1 || w.watched != rpc.CommitmentConfirmed {
		t.Fatalf("closed %d, watched at %q", w.closed, w.watched)
	}
}

// TestWatchEndsThenPolling: a watch that ends without a notice, and a
// watcher that fails, leave the resolution to polling, which lands it.
func TestWatchEndsThenPolling(t *testing.T) {
	for name, w := range map[string]*scripted{
		"ended":  {end: errors.New("subscription closed")},
		"failed": {watchErr: errors.New("no endpoint could take it")},
	} {
		t.Run(name, func(t *testing.T) {
			ch := newChain(t, node{name: "a"}, node{name: "b"})
			tx, lvbh := ch.tx(41, 0)
			o := skip
			r, err := ch.drive(&o, 20, func(o confirm.Options) (confirm.Result, error) {
				return resolve.SendAndConfirmWith(context.Background(), ch.tc, w.watcher, tx, lvbh, o)
			})
			if truth := ch.ledger.Tx(tx.Signatures[0].String()); err != nil || r.Status != confirm.Landed || r.Slot != truth.Slot {
				t.Fatalf("result %+v, error %v, truth %+v", r, err, truth)
			}
			if want := map[string]int{"ended": 1, "failed": 0}[name]; w.closed != want {
				t.Fatalf("closed %d times, want %d", w.closed, want)
			}
		})
	}
}

// TestPollOnlyNeverWatches: Options.PollOnly never calls the watcher.
func TestPollOnlyNeverWatches(t *testing.T) {
	ch := newChain(t, node{name: "a"})
	tx, lvbh := ch.tx(42, 0)
	w := &scripted{}
	o := skip
	o.PollOnly = true
	r, err := ch.drive(&o, 20, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirmWith(context.Background(), ch.tc, w.watcher, tx, lvbh, o)
	})
	if err != nil || r.Status != confirm.Landed || w.watched != "" {
		t.Fatalf("result %+v, error %v, watched at %q", r, err, w.watched)
	}
}

// TestRefusedSendClosesTheWatch: a send refused before dispatch returns
// its error with the watch closed.
func TestRefusedSendClosesTheWatch(t *testing.T) {
	ch := newChain(t, node{name: "a"})
	tx, lvbh := ch.tx(43, 0)
	ch.ledger.Fail(tx.Signatures[0].String(), fixtures.Failure{Instruction: 1, Custom: 1})
	w := &scripted{}
	r, err := resolve.SendAndConfirmWith(context.Background(), ch.tc, w.watcher, tx, lvbh, confirm.Options{PreflightCommitment: rpc.CommitmentProcessed})
	if err == nil || r.Polls != 0 || w.watched == "" || w.closed != 1 {
		t.Fatalf("result %+v, error %v, watched %q, closed %d", r, err, w.watched, w.closed)
	}
}
