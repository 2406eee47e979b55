package resolve

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/transport"
)

// SendAndConfirm sends tx through tc's pool and resolves it (see Resolve).
// lastValidBlockHeight is the one getLatestBlockhash returned with tx's
// blockhash.
//
// The send follows the transport's rules: it is never resent once a
// server may have acted on it. When it fails without any server having
// acted (a proven refusal, a preflight error) there is nothing to resolve:
// SendAndConfirm returns that error, and the Result only names the
// signature. When it is answered, or left ambiguous
// (engine.ErrAmbiguousDispatch, kept in Result.SendErr), the
// transaction is resolved and the error is nil: the verdict is in the
// Result. An answer that the transaction was already processed resolves
// it too; so does, for a durable-nonce transaction, a refusal because its
// nonce is not the account's, when an endpoint knows the signature at
// confirmed or better (it landed before, and advanced the nonce). Input
// errors (nil or unsigned tx, a lastValidBlockHeight that does not fit
// the transaction, bad options) come back before any request.
func SendAndConfirm(ctx context.Context, tc *engine.Engine, tx *solana.Transaction, lastValidBlockHeight uint64, o confirm.Options) (confirm.Result, error) {
	return SendAndConfirmWith(ctx, tc, nil, tx, lastValidBlockHeight, o)
}

// SendAndConfirmWith is SendAndConfirm that also watches the signature
// through w (nil: polling alone). The subscription is made before the
// send, so no notification can be missed, within SubscribeWait: a
// subscribe that fails or takes longer never fails nor further delays
// the send, and the resolution polls alone. A notification brings the
// verdict forward; polling stays the fallback and the only judge of
// expiry. The subscription is closed when it returns, a send refused
// before dispatch included.
func SendAndConfirmWith(ctx context.Context, tc *engine.Engine, w Watcher, tx *solana.Transaction, lastValidBlockHeight uint64, o confirm.Options) (confirm.Result, error) {
	return SendAndConfirmHooked(ctx, tc, Hooks{Watch: w}, tx, lastValidBlockHeight, o)
}

// SendAndConfirmHooked is SendAndConfirmWith with the root's hooks: the
// signature watch, and the watchers of a fan-out (Options.FanOut above
// 1: the copies go to that many send endpoints, each pinned to its own;
// see fanout.go). Options.FanOut over the pool's send endpoints is an
// error before any request.
func SendAndConfirmHooked(ctx context.Context, tc *engine.Engine, h Hooks, tx *solana.Transaction, lastValidBlockHeight uint64, o confirm.Options) (confirm.Result, error) {
	if tx == nil || len(tx.Signatures) == 0 || tx.Signatures[0].IsZero() {
		return confirm.Result{LastValidBlockHeight: lastValidBlockHeight}, errors.New("confirm: the transaction is nil or not signed")
	}
	o, err := withNonce(tx, o)
	if err != nil {
		return confirm.Result{Signature: tx.Signatures[0], LastValidBlockHeight: lastValidBlockHeight}, err
	}
	r, err := newResolver(tc, tx.Signatures[0], lastValidBlockHeight, o)
	if err == nil && r.o.FanOut > 1 {
		err = checkFanOut(tc, r.o.FanOut, "confirm: Options.FanOut")
	}
	if err != nil {
		return confirm.Result{Signature: tx.Signatures[0], LastValidBlockHeight: lastValidBlockHeight}, err
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return r.res, errors.New("confirm: the transaction does not serialize: " + err.Error())
	}
	wire := base64.StdEncoding.EncodeToString(raw)
	r.subscribe(ctx, h.Watch)
	defer r.closeWatch()
	var f *fanout
	if r.o.FanOut > 1 {
		f = newFanout(tc, r.o.FanOut, h.Copies)
	}
	if err := r.send(ctx, f, []any{wire, r.sendConfig()}); err != nil {
		return r.res, err
	}
	res := r.run(ctx, r.rebroadcast(f, wire))
	if f != nil {
		res.Copies, res.FirstAccepted = f.copies, f.first
		if landed := res.Status == confirm.Landed || res.Status == confirm.Failed; landed && f.first != "" {
			for _, w := range f.watchers {
				w.FirstAccepted(f.first)
			}
		}
	}
	return res, nil
}

// sendConfig is the first send's sendTransaction config.
func (r *resolver) sendConfig() map[string]any {
	cfg := map[string]any{"encoding": "base64"}
	if r.o.SkipPreflight {
		cfg["skipPreflight"] = true
	}
	if r.o.PreflightCommitment != "" {
		cfg["preflightCommitment"] = r.o.PreflightCommitment
	}
	if r.o.MaxRetries != nil {
		cfg["maxRetries"] = *r.o.MaxRetries
	}
	return cfg
}

// send sends the transaction once through the pool, or, with f, fans it
// out. An ambiguous send is kept in Result.SendErr and resolved; the
// error is a send that reached no server (nothing to resolve).
func (r *resolver) send(ctx context.Context, f *fanout, params []any) error {
	var err error
	if f != nil {
		err = f.send(ctx, params)
	} else {
		var sig string
		err = r.tc.CallForInto(ctx, &sig, "sendTransaction", params)
	}
	switch {
	case err == nil:
	case errors.Is(err, engine.ErrAmbiguousDispatch):
		r.res.SendErr = err
	case anyRefusal(err, alreadyProcessed):
		// It landed before: resolve it.
	case r.nonce && anyRefusal(err, blockhashNotFound):
		// A durable nonce that is not the account's, and nothing sent now.
		// It moved on, perhaps by this transaction landing before: agave
		// checks the nonce before the status cache, so a landed one is
		// never "already processed". Resolve it only if an endpoint knows
		// it; else the refusal stands (a resolution could never end: no
		// witness would see the nonce held).
		if err = r.landedBefore(ctx, err); err != nil {
			return r.refused(f, err)
		}
	default:
		return r.refused(f, err)
	}
	return nil
}

// refused ends a send that reached no server: its error, with the
// fan-out's copies in the Result.
func (r *resolver) refused(f *fanout, err error) error {
	if f != nil {
		r.res.Copies = f.copies
	}
	return err
}

// landedBefore asks, through the pool, for the signature's status, from
// the status cache and then with history search: nil when an endpoint
// knows it at confirmed or better (the resolution then reads it; one at
// processed only, perhaps on a fork, is no proof it moved the nonce),
// else refusal, saying why a durable-nonce transaction refused for its
// nonce was not resolved.
func (r *resolver) landedBefore(ctx context.Context, refusal error) error {
	ctx = engine.WithMonotonicReads(ctx, false)
	var failed []string
	var processed *rpc.SignatureStatusesResult
	historyFailed := false
	for _, history := range []bool{false, true} {
		st, _, err := r.status(ctx, history)
		switch {
		case err != nil:
			failed = append(failed, err.Error())
			historyFailed = history
		case st != nil && rank(statusOf(st)) >= rank("confirmed"):
			return nil
		case st != nil:
			processed = st
		}
	}
	known := "no endpoint knows the signature, history searched"
	switch {
	case processed != nil:
		known = fmt.Sprintf("an endpoint shows it only processed, in slot %d, not yet confirmed", processed.Slot)
	case len(failed) == 2:
		known = "its status could not be read (" + strings.Join(failed, "; ") + ")"
	case len(failed) == 1 && historyFailed:
		known = "no endpoint's status cache knows the signature, and history could not be searched (" + failed[0] + ")"
	}
	return fmt.Errorf("%w (its durable nonce is not the nonce account's, and %s: nothing was sent now; "+
		"another transaction used the nonce, or this one landed where no endpoint can show it yet: "+
		"Resolve it before signing again)", refusal, known)
}

// rebroadcast is the resolution's between-polls step when
// Options.Rebroadcast is set (nil otherwise): the identical bytes again,
// skipPreflight and maxRetries 0, through the pool or, with f, to the
// fan-out's endpoints.
func (r *resolver) rebroadcast(f *fanout, wire string) func(context.Context) {
	if r.o.Rebroadcast <= 0 {
		return nil
	}
	clock := r.clock
	last := clock.Now()
	again := []any{wire, map[string]any{"encoding": "base64", "skipPreflight": true, "maxRetries": 0}}
	return func(ctx context.Context) {
		now := clock.Now()
		if !due(last, now, r.o.Rebroadcast) || !r.valid() || rank(string(r.res.Confirmation)) >= rank("confirmed") {
			return
		}
		last = now
		r.res.Rebroadcasts++
		if f != nil {
			f.again(ctx, again)
			return
		}
		var ignored string
		_ = r.tc.CallForInto(ctx, &ignored, "sendTransaction", again) // its outcome is the next poll's to see
	}
}

// alreadyProcessed reports whether err is a node's answer that the
// transaction was already processed (agave's -32002 preflight failure
// "This transaction has already been processed", or the
// AlreadyProcessed transaction error).
func alreadyProcessed(err error) bool {
	var re *transport.RPCError
	if !errors.As(err, &re) {
		return false
	}
	return strings.Contains(re.Message, "already been processed") || strings.Contains(string(re.Data), "AlreadyProcessed")
}

// anyRefusal reports whether err, or any of the errors it joins (a
// fan-out's copies), is one that is.
func anyRefusal(err error, is func(error) bool) bool {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if anyRefusal(e, is) {
				return true
			}
		}
		return false
	}
	return is(err)
}

// blockhashNotFound reports whether err is a node's answer that the
// transaction's blockhash (for a durable-nonce transaction: its nonce) is
// not valid: agave's -32002 preflight failure "Blockhash not found", or
// the BlockhashNotFound transaction error.
func blockhashNotFound(err error) bool {
	var re *transport.RPCError
	if !errors.As(err, &re) {
		return false
	}
	return strings.Contains(re.Message, "Blockhash not found") || strings.Contains(string(re.Data), "BlockhashNotFound")
}

// due reports whether the interval since last has passed at now.
func due(last, now time.Time, every time.Duration) bool { return !now.Before(last.Add(every)) }
