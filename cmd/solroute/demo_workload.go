package main

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/fixtures"
)

// workload is the demo's mix of calls: typed reads through methods,
// reads through solana-go's own client, and signed transactions sent
// through solana-go — all over the same pool.
type workload struct {
	clock clockwork.Clock
	typed *solroute.Client
	sol   *rpc.Client
	stats *demoStats
	seed  uint64
	ops   []operation
	txSeq atomic.Uint64 // makes every transaction (and signature) unique
	// stalls are the chain's stalls during the run: the calls that start
	// in one are also counted apart (demoStats.stallCall).
	stalls []fixtures.Window
}

// operation is one kind of call and its share of the mix.
type operation struct {
	weight int
	// do makes one call. It returns the transaction's signature when the
	// call is a sendTransaction, "" otherwise.
	do func(ctx context.Context, w *workload) (signature string, err error)
}

// read makes a read operation of a call that returns only an error.
func read(weight int, call func(ctx context.Context, w *workload) error) operation {
	return operation{weight: weight, do: func(ctx context.Context, w *workload) (string, error) { return "", call(ctx, w) }}
}

// demoOperations is the mix, weights out of 100.
func demoOperations() []operation {
	return []operation{
		read(30, func(ctx context.Context, w *workload) error {
			_, err := w.typed.GetBalance(ctx, solana.SystemProgramID, solroute.BalanceOptions{Commitment: rpc.CommitmentConfirmed})
			return err
		}),
		read(10, func(ctx context.Context, w *workload) error { return w.typed.GetHealth(ctx) }),
		read(5, func(ctx context.Context, w *workload) error {
			_, err := w.typed.GetVersion(ctx)
			return err
		}),
		read(5, func(ctx context.Context, w *workload) error {
			_, err := w.typed.GetGenesisHash(ctx)
			return err
		}),
		read(25, func(ctx context.Context, w *workload) error {
			_, err := w.sol.GetSlot(ctx, rpc.CommitmentConfirmed)
			return err
		}),
		read(15, func(ctx context.Context, w *workload) error {
			_, err := w.sol.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
			return err
		}),
		{weight: 10, do: func(ctx context.Context, w *workload) (string, error) { return w.send(ctx) }},
	}
}

// send signs a fresh transaction and sends it once through the pool. It
// returns the signature even when the send failed: the transaction may
// have reached an endpoint all the same.
func (w *workload) send(ctx context.Context) (string, error) {
	tx, err := fixtures.SignedTransaction(w.seed<<32|w.txSeq.Add(1), "")
	if err != nil {
		return "", err
	}
	_, err = w.sol.SendTransactionWithOpts(ctx, tx, rpc.TransactionOpts{SkipPreflight: true})
	return tx.Signatures[0].String(), err
}

// caller makes calls one after another until stop is closed or ctx ends.
// Its choice of calls is a pure function of (seed, id). Every call it
// starts is recorded once, the one an interrupt cuts short included, so
// that no total of the summary counts a call another total dropped.
func (w *workload) caller(ctx context.Context, id int, stop <-chan struct{}) {
	rng := rand.New(rand.NewPCG(w.seed, uint64(id)))
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		default:
		}
		op := pick(rng, w.ops)
		start := w.clock.Now()
		sig, err := op.do(ctx, w)
		o := outcomeOf(err, ctx.Err() != nil)
		w.stats.call(w.clock.Since(start), sig, o)
		if inWindow(w.stalls, start) {
			w.stats.stallCall(o)
		}
	}
}

// inWindow reports whether t is inside one of ws.
func inWindow(ws []fixtures.Window, t time.Time) bool {
	for _, w := range ws {
		if !t.Before(w.From) && t.Before(w.Until) {
			return true
		}
	}
	return false
}

// pick draws an operation by weight.
func pick(rng *rand.Rand, ops []operation) *operation {
	total := 0
	for i := range ops {
		total += ops[i].weight
	}
	n := rng.IntN(total)
	for i := range ops {
		if n < ops[i].weight {
			return &ops[i]
		}
		n -= ops[i].weight
	}
	return &ops[len(ops)-1]
}
