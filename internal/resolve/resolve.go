package resolve

import (
	"context"
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/transport"
)

// Resolve finds out what became of the transaction whose first signature
// is sig and whose blockhash's lastValidBlockHeight is
// lastValidBlockHeight (from the getLatestBlockhash that gave the
// blockhash), through tc's pool, polling until it has landed or expired,
// or ctx ends (Unknown). It never sends anything. Its error is only for
// bad input, reported before any request: the outcome, Unknown included,
// is in the Result.
func Resolve(ctx context.Context, tc *engine.Engine, sig solana.Signature, lastValidBlockHeight uint64, o confirm.Options) (confirm.Result, error) {
	return ResolveWith(ctx, tc, nil, sig, lastValidBlockHeight, o)
}

// ResolveWith is Resolve that also watches the signature through w (nil:
// polling alone), subscribed before the first poll: a notification brings
// the verdict forward, polling stays the fallback and the only judge of
// expiry. The subscription is closed when it returns.
func ResolveWith(ctx context.Context, tc *engine.Engine, w Watcher, sig solana.Signature, lastValidBlockHeight uint64, o confirm.Options) (confirm.Result, error) {
	r, err := newResolver(tc, sig, lastValidBlockHeight, o)
	if err != nil {
		return confirm.Result{Signature: sig, LastValidBlockHeight: lastValidBlockHeight}, err
	}
	r.subscribe(ctx, w)
	defer r.closeWatch()
	return r.run(ctx, nil), nil
}

// resolver is one resolution.
type resolver struct {
	tc    *engine.Engine
	clock clockwork.Clock
	o     confirm.Options
	res   confirm.Result
	// readers are the pool's read endpoints, in configuration order: the
	// witnesses an expiry needs.
	readers []*reader
	// grouped is set when the quorum counts providers, not endpoints
	// (Witnesses).
	grouped bool
	// watching is set once some endpoint has reported a finalized block
	// height past lastValidBlockHeight: from then on every poll asks each
	// reader that has not vouched (witness.go). Before, one poll is one
	// status and one height read through the pool.
	watching bool
	// turn picks the reader whose height the next poll reads, before the
	// watch.
	turn int
	// watch is the signature's subscription, nil when there is none (no
	// watcher, PollOnly, the subscribe failed) or it ended.
	watch Watch
	// nonce is set for a durable-nonce transaction (nonce.go): expiry is
	// judged by its nonce account, not by height.
	nonce bool
}

// newResolver checks the input and starts a Result.
func newResolver(tc *engine.Engine, sig solana.Signature, lvbh uint64, o confirm.Options) (*resolver, error) {
	if tc == nil {
		return nil, errors.New("confirm: nil transport client")
	}
	if sig.IsZero() {
		return nil, errors.New("confirm: zero signature")
	}
	if err := checkNonce(o, lvbh); err != nil {
		return nil, err
	}
	o, err := normalized(o)
	if err != nil {
		return nil, err
	}
	r := &resolver{tc: tc, clock: tc.Pool().Clock(), o: o, res: confirm.Result{Signature: sig, LastValidBlockHeight: lvbh,
		NonceAccount: o.NonceAccount, Nonce: o.Nonce}}
	// A durable-nonce transaction has no height to wait for: every poll
	// asks each reader (witness.go), so that each sees the nonce held.
	r.nonce = !o.Nonce.IsZero()
	r.watching = r.nonce
	ws := readWitnesses(tc.Pool().Specs())
	for _, w := range ws {
		r.readers = append(r.readers, &reader{Witness: w})
	}
	n, grouped := WitnessCount(ws)
	r.grouped = grouped
	q := o.Quorum
	if q == 0 {
		q = min(2, n)
	}
	switch {
	case len(r.readers) == 0:
		return nil, errors.New("confirm: no endpoint of the pool serves reads: getSignatureStatuses and getEpochInfo need one")
	case q > n && grouped:
		return nil, fmt.Errorf("confirm: Options.Quorum %d exceeds the pool's %d read endpoints, endpoints of one provider counted once (%d in all): expired could never be concluded", q, n, len(r.readers))
	case q > n:
		return nil, fmt.Errorf("confirm: Options.Quorum %d exceeds the pool's %d read endpoints: expired could never be concluded", q, n)
	}
	r.res.Quorum = q
	r.update()
	return r, nil
}

// run polls until a verdict or ctx's end. between, when not nil, runs
// before every wait (SendAndConfirm's rebroadcast).
func (r *resolver) run(ctx context.Context, between func(context.Context)) confirm.Result {
	for {
		if ctx.Err() != nil {
			return r.unknown(ctx)
		}
		verdict := r.poll(ctx)
		r.update()
		if verdict {
			return r.res
		}
		if between != nil {
			between(ctx)
		}
		if r.o.OnPoll != nil {
			r.o.OnPoll(r.res)
		}
		n, err := r.wait(ctx)
		switch {
		case err != nil:
			return r.unknown(ctx)
		case n != nil:
			return r.notified(ctx, *n) // a notification is a verdict: expiry never comes from one
		}
	}
}

// unknown ends the resolution with what was last seen.
func (r *resolver) unknown(ctx context.Context) confirm.Result {
	r.res.Status = confirm.Unknown
	if r.res.LastErr == nil {
		r.res.LastErr = ctx.Err()
	}
	r.update()
	return r.res
}

// poll asks once, and reports whether there is a verdict. Every read
// goes outside any session's floor (engine.WithMonotonicReads off): an
// endpoint a few slots behind answers for itself, and what it says is
// weighed here, never refused as stale and asked elsewhere.
func (r *resolver) poll(ctx context.Context) bool {
	r.res.Polls++
	r.res.LastErr = nil
	ctx = engine.WithMonotonicReads(ctx, false)
	st, _, err := r.status(ctx, false) // through the pool: any endpoint will do
	switch {
	case err != nil:
		r.res.LastErr = err // the witnesses below are asked all the same
	case st != nil:
		// Found, perhaps not yet at the commitment: never expired while
		// some endpoint knows it.
		return r.seen(st)
	}
	if !r.watching {
		if err := r.height(ctx); err != nil {
			r.res.LastErr = err
			return false
		}
		if !r.watching {
			return false
		}
	}
	return r.witnessRound(ctx)
}

// seen records a status, and reports whether it is a verdict: found at
// the requested commitment.
func (r *resolver) seen(st *rpc.SignatureStatusesResult) bool {
	r.res.Slot = st.Slot
	cs := statusOf(st)
	if rank(cs) > rank(string(r.res.Confirmation)) {
		r.res.Confirmation = rpc.ConfirmationStatusType(cs)
	}
	if rank(cs) < rank(string(r.o.Commitment)) {
		return false
	}
	r.res.Status, r.res.Err = confirm.Landed, st.Err
	if st.Err != nil {
		r.res.Status = confirm.Failed
	}
	return true
}

// status asks for the signature's status through ctx (the pool, or one
// endpoint): the status (nil: unknown there) and the answer's context
// slot (a processed slot).
func (r *resolver) status(ctx context.Context, history bool) (*rpc.SignatureStatusesResult, uint64, error) {
	var out rpc.GetSignatureStatusesResult
	params := []any{[]string{r.res.Signature.String()}, map[string]any{"searchTransactionHistory": history}}
	if err := r.tc.CallForInto(ctx, &out, "getSignatureStatuses", params); err != nil {
		return nil, 0, err
	}
	if len(out.Value) != 1 {
		return nil, 0, fmt.Errorf("confirm: getSignatureStatuses answered %d statuses for one signature", len(out.Value))
	}
	return out.Value[0], out.Context.Slot, nil
}

// epochInfo reads, through ctx, the finalized block height and the slot
// it is at (getEpochInfo: both from one bank).
func (r *resolver) epochInfo(ctx context.Context) (rpc.GetEpochInfoResult, error) {
	var out rpc.GetEpochInfoResult
	err := r.tc.CallForInto(ctx, &out, "getEpochInfo", []any{map[string]any{"commitment": "finalized"}})
	return out, err
}

// height reads the finalized block height of one reader, pinned to it,
// each poll the next in turn that is not blocked (every reader is heard
// from within as many polls as there are readers, whichever the pool
// would prefer), and records it; a height past lastValidBlockHeight
// starts the watch. With every reader blocked it reads through the pool.
func (r *resolver) height(ctx context.Context) error {
	skip := r.blocked()
	var w *reader
	for range r.readers {
		next := r.readers[r.turn%len(r.readers)]
		r.turn++
		if _, blocked := skip[next.Endpoint]; !blocked {
			w = next
			break
		}
	}
	var from string
	if w != nil {
		from, ctx = w.Endpoint, engine.WithEndpoint(ctx, w.Endpoint)
	} else {
		ctx = engine.WithObserver(ctx, engine.AttemptFunc(func(_ context.Context, _ string, a transport.Attempt) {
			if !a.Failed() {
				from = a.Endpoint
			}
		}))
	}
	info, err := r.epochInfo(ctx)
	if err != nil {
		if w != nil {
			w.said = r.failure(ctx, "getEpochInfo", err)
			w.Reason = w.said
		}
		return err
	}
	if w := r.reader(from); w != nil {
		r.heard(w, info)
	}
	if info.BlockHeight > r.res.LastValidBlockHeight {
		r.watching = true
	}
	return nil
}

// valid reports whether, as far as a quorum of endpoints has said, the
// blockhash (or the durable nonce) may still be valid: one endpoint's
// height, or nonce, cannot stop a rebroadcast.
func (r *resolver) valid() bool {
	if r.nonce {
		return r.nonceMoved() < r.res.Quorum
	}
	return r.res.BlockHeight <= r.res.LastValidBlockHeight
}
