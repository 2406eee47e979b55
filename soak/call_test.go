package soak

import (
	"context"
	"errors"
	"time"

	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/transport"
)

// What one call of TestSoak asks and how its error is checked.

// tx returns send k's transaction (base64), signing it the first time:
// only the goroutine making send k calls it during the run.
func (s *soak) tx(k int) string {
	if s.txs[k] == "" {
		tx, err := fixtures.SignedTransaction(s.seed<<20+uint64(k), "")
		if err != nil {
			panic(err) // a fixed seed and a fixed key: cannot fail
		}
		if s.txs[k], err = fixtures.EncodeTransaction(tx); err != nil {
			panic(err)
		}
		s.sigs[k] = tx.Signatures[0].String()
	}
	return s.txs[k]
}

// callContext is call h's context: w's session, and one call in five a
// 50 ms deadline, one in five 150 ms (the others the pool's).
func callContext(w *caller, h uint64) (context.Context, context.CancelFunc) {
	ctx := context.Background()
	if w.session != nil {
		ctx = engine.WithSession(ctx, w.session)
	}
	switch h % 10 {
	case 0, 1:
		return context.WithTimeout(ctx, 50*time.Millisecond)
	case 2, 3:
		return context.WithTimeout(ctx, 150*time.Millisecond)
	}
	return ctx, func() {}
}

// request is call i's method and params (h drawn for it): one call in
// sendEvery a send, the others a read.
func (s *soak) request(i int, h uint64) (method string, params []any, send bool) {
	method = readMethods[(h>>8)%uint64(len(readMethods))]
	switch {
	case i%sendEvery == sendEvery-1:
		return "sendTransaction", []any{s.tx(i / sendEvery), map[string]any{"encoding": "base64"}}, true
	case method == "getBalance":
		params = []any{"11111111111111111111111111111111"}
	}
	return method, params, false
}

// checkError checks a call's error as it returns: a *transport.CallError
// (returned, nil otherwise) naming no secret, and for a read no node
// error taken for the call's answer.
func (s *soak) checkError(i int, method string, send bool, err error) *transport.CallError {
	if err == nil {
		return nil
	}
	var ce *transport.CallError
	if !errors.As(err, &ce) {
		s.bad.add("call %d (%s): error is not a *transport.CallError: %T %v", i, method, err, err)
	}
	if m := secretIn(err.Error()); m != "" {
		s.bad.add("call %d (%s): error text carries secret marker %s: %v", i, method, m, err)
	}
	if !send && ce != nil {
		s.checkEndpointError(i, method, ce)
	}
	return ce
}
