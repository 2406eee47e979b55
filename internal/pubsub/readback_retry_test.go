package pubsub_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/ws"

	"github.com/solroute/solroute/internal/pubsub"
)

// failingReader fails its first n reads of signature statuses, then
// reads through inner.
type failingReader struct {
	pubsub.Reader
	mu    sync.Mutex
	n     int
	calls int
}

// GetSignatureStatuses fails while fewer than n calls were made.
func (r *failingReader) GetSignatureStatuses(ctx context.Context, sigs []solana.Signature) (*rpc.GetSignatureStatusesResult, error) {
	r.mu.Lock()
	r.calls++
	fail := r.calls <= r.n
	r.mu.Unlock()
	if fail {
		return nil, errors.New("every HTTP endpoint is briefly down")
	}
	return r.Reader.GetSignatureStatuses(ctx, sigs)
}

// count is how many signature reads were made.
func (r *failingReader) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls
}

// withFailingReader is a build with redundancy 1 whose Reader is fr over
// the env's own.
func withFailingReader(fr *failingReader) func([]pubsub.Endpoint, *pubsub.Settings, *pubsub.Options) {
	return func(_ []pubsub.Endpoint, s *pubsub.Settings, o *pubsub.Options) {
		s.Redundancy = 1
		fr.Reader = o.Reader
		o.Reader = fr
	}
}

// TestSignatureReadBackRetriesUntilRead: SignatureSubscribe's doc: "Its
// status is read back once the subscribe is answered, so a transaction
// that landed before never goes unnoticed." The first 3 reads fail (the
// HTTP side is briefly down); the engine keeps reading, and the
// transaction, confirmed before the subscribe, is reported.
func TestSignatureReadBackRetriesUntilRead(t *testing.T) {
	fr := &failingReader{n: 3}
	e := newEnv(t, []member{{name: "a"}}, withFailingReader(fr))
	sigText, _ := setLamports(t, e, key(9), 1)
	e.steps(8) // landed and confirmed
	sig := solana.MustSignatureFromBase58(sigText)
	ch := subscribeAsync(func() (*pubsub.Subscription[*ws.SignatureResult], error) {
		return e.eng.SignatureSubscribe(ctxT(t), sig, rpc.CommitmentConfirmed)
	})
	r := <-ch
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.v.Close()
	e.steps(100) // 40 s: the HTTP side is back after the third read
	if _, err := r.v.Next(ctxDone()); err != nil {
		t.Errorf("a confirmed transaction, 40 s after subscribing, reads made %d (the first 3 failed): no notification (%v)",
			fr.count(), err)
	}
}

// TestReadBackRetryCost: while the HTTP side stays down, 20 signature
// streams subscribed 100 ms apart keep being read back, at a bounded
// cost: past their quick retries they share rounds (one batch each),
// which grow apart to between BackoffMax/2 and BackoffMax (15 to 30 s).
// In the second minute, at most 5 reads are made in all (4 rounds and
// one across the boundary), where a schedule per stream would make 40 or
// more.
func TestReadBackRetryCost(t *testing.T) {
	fr := &failingReader{n: 1 << 30}
	e := newEnv(t, []member{{name: "a"}}, withFailingReader(fr))
	for i := range 20 {
		sub, err := e.eng.SignatureSubscribe(ctxT(t), solana.Signature{byte(i), 7}, rpc.CommitmentConfirmed)
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		e.step(100 * time.Millisecond)
	}
	e.advance(58*time.Second, 100*time.Millisecond)
	first := fr.count()
	e.advance(60*time.Second, 100*time.Millisecond)
	second := fr.count() - first
	t.Logf("signature reads, every one failing: %d in the first minute, %d in the second", first, second)
	if second == 0 || second > 5 {
		t.Errorf("%d reads in the second minute, want 1 to 5 (rounds 15 to 30 s apart)", second)
	}
}
