package solroute

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/internal/bundles"
	"github.com/solroute/solroute/internal/resolve"
	"github.com/solroute/solroute/transport"
)

// SendToMany sends tx's signed bytes to k distinct send endpoints at once
// (best tier first among those that can take a copy now; one refused
// before dispatch is replaced by the next), each copy pinned to its
// endpoint, under its limits, cooldown and doubt, and never resent once a
// server may have acted on it; and returns what each endpoint did, in the
// order they were given a copy (see confirm.Copy). opts is the
// sendTransaction config (encoding is always base64). The chain keeps one
// transaction per signature: the copies land it once at most.
//
// The error is nil when an endpoint accepted a copy; it matches
// ErrAmbiguousDispatch when none did but some copy may have reached a
// server (resolve the signature, with Resolve, before sending again); any
// other error means every copy was refused before dispatch: nothing was
// sent. Before any request it refuses, with an *InputError: a tx that is
// nil, not fully signed, whose signatures do not verify or that is over
// 1232 bytes; k below 1 or above the pool's send endpoints.
func (c *Client) SendToMany(ctx context.Context, tx *solana.Transaction, k int, opts rpc.TransactionOpts) ([]confirm.Copy, error) {
	if _, _, err := bundles.Check([]*solana.Transaction{tx}); err != nil {
		var p *bundles.Problem
		if errors.As(err, &p) {
			return nil, &InputError{Field: "tx", Value: "", Reason: p.Reason}
		}
		return nil, err
	}
	if n := resolve.SendEndpoints(c.engine); k < 1 || k > n {
		return nil, &InputError{Field: "k", Value: strconv.Itoa(k),
			Reason: "want 1 to the pool's " + strconv.Itoa(n) + " send endpoints: each copy goes to a distinct one"}
	}
	cfg := map[string]any{}
	if opts.SkipPreflight {
		cfg["skipPreflight"] = true
	}
	if opts.PreflightCommitment != "" {
		cfg["preflightCommitment"] = opts.PreflightCommitment
	}
	if opts.MaxRetries != nil {
		cfg["maxRetries"] = *opts.MaxRetries
	}
	if opts.MinContextSlot != nil {
		cfg["minContextSlot"] = *opts.MinContextSlot
	}
	return resolve.SendCopies(ctx, c.engine, tx, k, cfg, c.copies.load())
}

// fanOut is o's fan-out: Options.FanOut, or when 0 the document's
// [send] fan_out (0 there too: one send).
func (c *Client) fanOut(o confirm.Options) confirm.Options {
	if o.FanOut == 0 {
		o.FanOut = c.defaultFanOut
	}
	return o
}

// copyWatchers are the Observers a fan-out tells of its copies (package
// metrics'): read with one atomic load per send.
type copyWatchers struct {
	mu   sync.Mutex
	list atomic.Pointer[[]resolve.CopyWatcher]
}

// load returns the watchers added so far; nil when none.
func (w *copyWatchers) load() []resolve.CopyWatcher {
	if p := w.list.Load(); p != nil {
		return *p
	}
	return nil
}

// watch adds each of obs that implements resolve.CopyWatcher.
func (w *copyWatchers) watch(obs ...transport.Observer) {
	for _, o := range obs {
		cw, ok := o.(resolve.CopyWatcher)
		if !ok {
			continue
		}
		w.mu.Lock()
		next := append(append([]resolve.CopyWatcher(nil), w.load()...), cw)
		w.list.Store(&next)
		w.mu.Unlock()
	}
}
