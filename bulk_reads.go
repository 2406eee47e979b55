package solroute

import (
	"context"
	"fmt"
	"maps"
	"sync"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/transport"
)

// maxChunkAsks is how many times a getMultipleAccounts or
// getSignatureStatuses chunk is asked before a wrong answer fails it (one
// below the floor, or with another number of values than asked): once,
// then twice more, each time avoiding the endpoints that answered so.
const maxChunkAsks = 3

// chunkValue is a {context, value: [...]} answer of one chunk.
type chunkValue[T any] struct {
	Context struct {
		Slot uint64 `json:"slot"`
	} `json:"context"`
	Value []T `json:"value"`
}

// askChunk reads one chunk's values into out with method and params, at
// or past floor (the context slot of an answer at commitment), and
// returns the answer's slot. An answer below the floor (a node that does
// not honour minContextSlot, or a read without one, with monotonic reads
// off) or with another number of values than out holds (a broken node's)
// is asked again elsewhere, up to maxChunkAsks times in all, avoiding each
// endpoint that gave one; the last fails the chunk, naming its endpoint.
func askChunk[T any](ctx context.Context, c *Client, method string, params []any,
	commitment rpc.CommitmentType, floor uint64, out []T) (uint64, error) {
	var avoid []string
	for try := 1; ; try++ {
		seen := &lastEndpoint{}
		actx := engine.WithObserver(ctx, seen)
		if len(avoid) > 0 {
			actx = engine.WithAvoid(actx, avoid...)
		}
		var res required[chunkValue[T]]
		if err := c.engine.CallForInto(actx, &res, method, params); err != nil {
			return 0, err
		}
		slot, v := res.v.Context.Slot, res.v.Value
		var wrong error
		switch {
		case slot < floor:
			wrong = fmt.Errorf("answered below the bulk read's floor: %w",
				&transport.StaleError{Commitment: commitment, Slot: slot, Floor: floor})
		case len(v) != len(out):
			wrong = fmt.Errorf("answered %d values for %d inputs", len(v), len(out))
		default:
			copy(out, v)
			return slot, nil
		}
		if try == maxChunkAsks {
			return 0, fmt.Errorf("solroute: %s: %s %w (asked %d times)", method, seen.name(), wrong, try)
		}
		avoid = append(avoid, seen.name())
	}
}

// accountsBulk is GetMultipleAccountsBulk's read.
func accountsBulk(c *Client, keys []solana.PublicKey, opts BulkOptions) (*bulkCall, []*rpc.Account, error) {
	const method = "getMultipleAccounts"
	size, inflight, err := opts.shape(method, maxAccountsChunk)
	if err != nil {
		return nil, nil, err
	}
	enc, err := opts.encoding(method, solana.EncodingBase58, solana.EncodingBase64, solana.EncodingBase64Zstd, solana.EncodingJSONParsed)
	if err != nil {
		return nil, nil, err
	}
	if err := noZeroKey(keys); err != nil {
		return nil, nil, err
	}
	base := rpc.M{"encoding": enc}
	if opts.Commitment != "" {
		base["commitment"] = opts.Commitment
	}
	if opts.DataSlice != nil {
		base["dataSlice"] = opts.DataSlice
	}
	out := make([]*rpc.Account, len(keys))
	ask := func(ctx context.Context, lo, hi int, floor uint64) (uint64, error) {
		cfg := base
		if floor > 0 {
			cfg = maps.Clone(base)
			cfg["minContextSlot"] = floor
		}
		return askChunk(ctx, c, method, []any{keys[lo:hi], cfg}, commitmentOr(opts.Commitment), floor, out[lo:hi])
	}
	b := &bulkCall{method: method, n: len(keys), size: size, inflight: inflight, floored: true, ask: ask}
	if opts.MinContextSlot != nil {
		b.minSlot = *opts.MinContextSlot
	}
	return b, out, nil
}

// statusesBulk is GetSignatureStatusesBulk's read.
func statusesBulk(c *Client, sigs []solana.Signature, opts BulkOptions) (*bulkCall, []*rpc.SignatureStatusesResult, error) {
	const method = "getSignatureStatuses"
	size, inflight, err := opts.shape(method, maxStatusesChunk)
	if err != nil {
		return nil, nil, err
	}
	if err := noZeroSignature(sigs); err != nil {
		return nil, nil, err
	}
	var cfg []any
	if opts.SearchTransactionHistory {
		cfg = []any{rpc.M{"searchTransactionHistory": true}}
	}
	out := make([]*rpc.SignatureStatusesResult, len(sigs))
	ask := func(ctx context.Context, lo, hi int, floor uint64) (uint64, error) {
		params := append([]any{sigs[lo:hi]}, cfg...)
		return askChunk(ctx, c, method, params, rpc.CommitmentProcessed, floor, out[lo:hi])
	}
	b := &bulkCall{method: method, n: len(sigs), size: size, inflight: inflight, floored: true, ask: ask}
	if opts.MinContextSlot != nil {
		b.minSlot = *opts.MinContextSlot
	}
	return b, out, nil
}

// transactionsBulk is GetTransactionsBulk's read.
func transactionsBulk(c *Client, sigs []solana.Signature, opts BulkOptions) (*bulkCall, []*rpc.GetTransactionResult, error) {
	const method = "getTransaction"
	_, inflight, err := opts.shape(method, 1)
	if err != nil {
		return nil, nil, err
	}
	if err := historyCommitment(opts.Commitment); err != nil {
		return nil, nil, err
	}
	enc, err := opts.encoding(method, solana.EncodingBase58, solana.EncodingBase64, solana.EncodingJSON)
	if err != nil {
		return nil, nil, err
	}
	if err := noZeroSignature(sigs); err != nil {
		return nil, nil, err
	}
	cfg := rpc.M{"encoding": enc, "maxSupportedTransactionVersion": 0}
	if opts.Commitment != "" {
		cfg["commitment"] = opts.Commitment
	}
	out := make([]*rpc.GetTransactionResult, len(sigs))
	ask := func(ctx context.Context, lo, _ int, _ uint64) (uint64, error) {
		var res *rpc.GetTransactionResult
		if err := c.engine.CallForInto(ctx, &res, method, []any{sigs[lo], cfg}); err != nil {
			return 0, err
		}
		out[lo] = res
		return 0, nil
	}
	return &bulkCall{method: method, n: len(sigs), size: 1, inflight: inflight, ask: ask}, out, nil
}

// lastEndpoint is an observer that keeps the endpoint of a call's last
// attempt: the one whose answer the call returned.
type lastEndpoint struct {
	mu       sync.Mutex
	endpoint string
}

func (l *lastEndpoint) name() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.endpoint
}

func (l *lastEndpoint) CallStarted(ctx context.Context, _ transport.CallInfo) context.Context {
	return ctx
}

func (l *lastEndpoint) AttemptStarted(ctx context.Context, _ transport.CallInfo, _ transport.Attempt) context.Context {
	return ctx
}

func (l *lastEndpoint) AttemptEnded(_ context.Context, _ transport.CallInfo, a transport.Attempt) {
	if a.Cause == 0 { // a success: the answer the call returns
		l.mu.Lock()
		l.endpoint = a.Endpoint
		l.mu.Unlock()
	}
}

func (l *lastEndpoint) CallEnded(context.Context, transport.CallInfo, transport.CallResult) {}

// commitmentOr is c, or the commitment a node reads at without one:
// finalized (what a StaleError of the answer names).
func commitmentOr(c rpc.CommitmentType) rpc.CommitmentType {
	if c == "" {
		return rpc.CommitmentFinalized
	}
	return c
}
