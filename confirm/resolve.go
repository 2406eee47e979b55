package confirm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/transport"
)

// Resolve finds out what became of the transaction whose first signature
// is sig and whose blockhash's lastValidBlockHeight is
// lastValidBlockHeight (from the getLatestBlockhash that gave the
// blockhash), through tc's pool, polling until it has landed or expired,
// or ctx ends (Unknown). It never sends anything. Its error is only for
// bad input, reported before any request: the outcome, Unknown included,
// is in the Result.
func Resolve(ctx context.Context, tc *transport.Client, sig solana.Signature, lastValidBlockHeight uint64, o Options) (Result, error) {
	r, err := newResolver(tc, sig, lastValidBlockHeight, o)
	if err != nil {
		return Result{Signature: sig, LastValidBlockHeight: lastValidBlockHeight}, err
	}
	return r.run(ctx, nil), nil
}

// resolver is one resolution.
type resolver struct {
	tc  *transport.Client
	o   Options
	res Result
}

// newResolver checks the input and starts a Result.
func newResolver(tc *transport.Client, sig solana.Signature, lvbh uint64, o Options) (*resolver, error) {
	if tc == nil {
		return nil, errors.New("confirm: nil transport client")
	}
	if sig.IsZero() {
		return nil, errors.New("confirm: zero signature")
	}
	if lvbh == 0 {
		return nil, errors.New("confirm: lastValidBlockHeight is 0: pass the one getLatestBlockhash returned with the transaction's blockhash")
	}
	o, err := o.normalized()
	if err != nil {
		return nil, err
	}
	return &resolver{tc: tc, o: o, res: Result{Signature: sig, LastValidBlockHeight: lvbh}}, nil
}

// run polls until a verdict or ctx's end. between, when not nil, runs
// before every wait (SendAndConfirm's rebroadcast).
func (r *resolver) run(ctx context.Context, between func(context.Context)) Result {
	// A read session of its own: once an answer at some slot is seen, an
	// older one (an endpoint behind) is refused and asked elsewhere.
	ctx = transport.WithSession(ctx, transport.NewSession())
	clock := r.tc.Pool().Clock()
	for {
		if ctx.Err() != nil {
			return r.unknown(ctx)
		}
		if r.poll(ctx) {
			return r.res
		}
		if between != nil {
			between(ctx)
		}
		if r.o.OnPoll != nil {
			r.o.OnPoll(r.res)
		}
		t := clock.NewTimer(r.o.PollInterval)
		select {
		case <-t.Chan():
		case <-ctx.Done():
			t.Stop()
			return r.unknown(ctx)
		}
	}
}

// unknown ends the resolution with what was last seen.
func (r *resolver) unknown(ctx context.Context) Result {
	r.res.Status = Unknown
	if r.res.LastErr == nil {
		r.res.LastErr = ctx.Err()
	}
	return r.res
}

// poll asks once, and reports whether there is a verdict.
func (r *resolver) poll(ctx context.Context) bool {
	r.res.Polls++
	st, _, _, err := r.status(ctx, false)
	if err != nil {
		r.res.LastErr = err
		return false
	}
	r.res.LastErr = nil
	if st != nil {
		// Found, perhaps not yet at the commitment: never expired while
		// some endpoint knows it.
		return r.seen(st)
	}
	height, slot, err := r.finalizedHeight(ctx)
	if err != nil {
		r.res.LastErr = err
		return false
	}
	if height <= r.res.LastValidBlockHeight {
		return false
	}
	// The blockhash has expired at finalized slot `slot`. It is expired
	// for this transaction only if endpoints that have seen that slot do
	// not know the signature, with history search: one endpoint behind, or
	// one that missed the transaction, cannot decide it.
	var asked []string
	for need := r.need(); len(asked) < need; {
		st, at, ep, err := r.status(transport.WithAvoid(ctx, asked...), true)
		switch {
		case err != nil:
			r.res.LastErr = err
			return false
		case st != nil:
			return r.seen(st)
		case at < slot || ep == "" || slices.Contains(asked, ep):
			return false // behind the expiry, or no other endpoint free: next poll
		}
		asked = append(asked, ep)
	}
	r.res.Status = Expired
	return true
}

// need is how many endpoints must agree that the signature is unknown: two
// when two read endpoints are in step and verified, else one.
func (r *resolver) need() int {
	n := 0
	for _, s := range r.tc.Pool().Snapshot() {
		if s.Role == endpoint.RoleRead && s.SlotStanding == endpoint.InStep && s.Verification == endpoint.Verified {
			n++
		}
	}
	return min(max(n, 1), 2)
}

// seen records a status, and reports whether it is a verdict: found at
// the requested commitment.
func (r *resolver) seen(st *rpc.SignatureStatusesResult) bool {
	r.res.Slot = st.Slot
	cs := string(st.ConfirmationStatus)
	if cs == "" && st.Confirmations == nil {
		cs = "finalized" // a node too old to say: rooted
	}
	if rank(cs) > rank(string(r.res.Confirmation)) {
		r.res.Confirmation = rpc.ConfirmationStatusType(cs)
	}
	if rank(cs) < rank(string(r.o.Commitment)) {
		return false
	}
	r.res.Status, r.res.Err = Landed, st.Err
	if st.Err != nil {
		r.res.Status = Failed
	}
	return true
}

// status asks one endpoint for the signature's status: the status (nil:
// unknown there), the answer's context slot (a processed slot), and which
// endpoint answered.
func (r *resolver) status(ctx context.Context, history bool) (st *rpc.SignatureStatusesResult, at uint64, ep string, err error) {
	ctx = transport.WithAttemptObserver(ctx, func(_ context.Context, _ string, a transport.Attempt) {
		if !a.Failed() {
			ep = a.Endpoint
		}
	})
	var out rpc.GetSignatureStatusesResult
	params := []any{[]string{r.res.Signature.String()}, map[string]any{"searchTransactionHistory": history}}
	if err := r.tc.CallForInto(ctx, &out, "getSignatureStatuses", params); err != nil {
		return nil, 0, "", err
	}
	if len(out.Value) != 1 {
		return nil, 0, "", fmt.Errorf("confirm: getSignatureStatuses answered %d statuses for one signature", len(out.Value))
	}
	return out.Value[0], out.Context.Slot, ep, nil
}

// finalizedHeight reads the finalized block height and the slot it is at
// (getEpochInfo: both from one bank).
func (r *resolver) finalizedHeight(ctx context.Context) (height, slot uint64, err error) {
	var out rpc.GetEpochInfoResult
	if err := r.tc.CallForInto(ctx, &out, "getEpochInfo", []any{map[string]any{"commitment": "finalized"}}); err != nil {
		return 0, 0, err
	}
	r.res.BlockHeight = max(r.res.BlockHeight, out.BlockHeight)
	return out.BlockHeight, out.AbsoluteSlot, nil
}

// valid reports whether, as far as the resolution has seen, the blockhash
// may still be valid.
func (r *resolver) valid() bool { return r.res.BlockHeight <= r.res.LastValidBlockHeight }

// due reports whether the interval since last has passed at now.
func due(last, now time.Time, every time.Duration) bool { return !now.Before(last.Add(every)) }
