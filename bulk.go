package solroute

import (
	"context"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/engine"
)

// The bulk reads: one call for any number of accounts, transactions or
// signature statuses, chunked to each method's limit, spread over the
// pool under one cap on the chunks in flight, answered in input order, and
// (accounts, statuses) every chunk at or past one common slot. See
// docs/bulk.md and plans/018-reads-at-scale.md, "Bulk reads".

// BulkOptions tune GetMultipleAccountsBulk, GetSignatureStatusesBulk and
// GetTransactionsBulk; a field one of them has no use for is ignored by
// it. The zero value reads at the node's default commitment, with an
// in-flight cap that follows the pool, each chunk as large as the method
// takes.
type BulkOptions struct {
	// Commitment is processed, confirmed or finalized; "" means the node's
	// default (finalized). getTransaction takes confirmed or finalized
	// only. getSignatureStatuses reads the node's processed bank whatever
	// it says, so it is not sent.
	Commitment rpc.CommitmentType
	// MinContextSlot, when set, is the least slot any chunk may be read at:
	// the floor starts there (for getSignatureStatuses, a processed slot).
	// Nil means the first chunk's answer sets it. Not used by
	// GetTransactionsBulk (getTransaction reads history, with no slot).
	MinContextSlot *uint64
	// InFlight caps the chunks of this one call in flight at once, across
	// every endpoint. 0 means adaptive: what the read endpoints the pool
	// would use first can take, by Little's law, 1.25 × the sum of each
	// one's configured requests a second × its latency estimate (100 ms
	// before any answer), asked again as the call runs, within 4..256 and
	// the endpoints' MaxConcurrentRequests (rule and measurements:
	// docs/bulk.md). BulkResult.InFlight says what it was. A chunk's
	// retries stay within its place; a hedge (transport.Settings.
	// HedgeAfter) may add one request to it.
	InFlight int
	// ChunkSize is how many inputs one request carries: 0 means the
	// method's limit (getMultipleAccounts 100, getSignatureStatuses 256,
	// getTransaction 1); more than the limit is an *InputError. A smaller
	// chunk bounds the size of one answer (accounts of megabytes each).
	ChunkSize int
	// Encoding is the accounts' data encoding (getMultipleAccounts:
	// base58, base64, base64+zstd or jsonParsed) or the transactions'
	// (getTransaction: base58, base64 or json; solana-go's transaction
	// type decodes no jsonParsed one): "" means base64.
	Encoding solana.EncodingType
	// DataSlice, when set, asks getMultipleAccounts for that part of each
	// account's data only.
	DataSlice *rpc.DataSlice
	// SearchTransactionHistory asks getSignatureStatuses to look past the
	// recent status cache, in the node's ledger history.
	SearchTransactionHistory bool
}

// BulkResult is what a bulk read returns: one value per input, in input
// order (nil where the node has none: an account that does not exist, a
// signature it has not seen, or an input of a chunk that failed, see
// BulkError).
type BulkResult[T any] struct {
	// Value holds the answers, Value[i] for input i.
	Value []T
	// Floor is the slot every chunk was read at or past (accounts,
	// statuses; 0 for transactions, which carry no context slot): the
	// first chunk's context slot, or MinContextSlot when higher.
	Floor uint64
	// HighestSlot is the highest context slot of any chunk (0 for
	// transactions). Between Floor and HighestSlot the chunks are each a
	// node's view at its own slot: no input is older than Floor.
	HighestSlot uint64
	// InFlight is the cap on chunks in flight the call ran under:
	// BulkOptions.InFlight when set, else the largest the adaptive rule
	// chose (0 when no chunk was spread: no inputs, a single chunk read
	// alone for the floor, or the first chunks failing).
	InFlight int
}

// GetMultipleAccountsBulk reads every account of keys with
// getMultipleAccounts, opts.ChunkSize (default 100) keys a request, at
// most opts.InFlight (default: what the pool's endpoints can take)
// requests of this call in flight, each
// through the pool as any call (failover, limits, retries, slot tracking).
// The first chunk is read alone; its context slot is the floor every
// other chunk asks for as its minContextSlot, so a node behind it refuses
// (-32016) and the pool asks another. Value[i] is keys[i]'s account, nil
// when it does not exist.
//
// Invalid input is an *InputError before any request: the zero key (see
// docs/bulk.md: an unset element, not a read of the System Program), a
// ChunkSize above 100, a negative InFlight, an unknown commitment or
// encoding. No keys: an empty result and no request. A chunk that fails
// leaves its inputs nil and the others are still read: the error is then a
// *BulkError, with every value read.
func (c *Client) GetMultipleAccountsBulk(ctx context.Context, keys []solana.PublicKey, opts BulkOptions) (*BulkResult[*rpc.Account], error) {
	b, out, err := accountsBulk(c, keys, opts)
	if err != nil {
		return nil, err
	}
	return finish(ctx, c, b, out)
}

// GetSignatureStatusesBulk reads the status of every signature of sigs
// with getSignatureStatuses, opts.ChunkSize (default 256) a request, under
// the same cap, order and errors as GetMultipleAccountsBulk. The method
// takes no minContextSlot but answers its processed bank's slot: the
// first chunk's is the floor, and a chunk answered below it is asked again
// of another endpoint (twice at most, then that chunk fails with a
// *transport.StaleError). Value[i] is sigs[i]'s status, nil when the node
// has not seen it (not yet arrived, dropped, or out of its status cache).
// The zero signature is an *InputError, as is a ChunkSize above 256.
func (c *Client) GetSignatureStatusesBulk(ctx context.Context, sigs []solana.Signature, opts BulkOptions) (*BulkResult[*rpc.SignatureStatusesResult], error) {
	b, out, err := statusesBulk(c, sigs, opts)
	if err != nil {
		return nil, err
	}
	return finish(ctx, c, b, out)
}

// GetTransactionsBulk reads every transaction of sigs with getTransaction,
// one a request (the method takes one), at most opts.InFlight in flight,
// in input order, with maxSupportedTransactionVersion 0 (legacy and v0
// transactions). Transactions are history: there is no context slot and
// no floor (Floor and HighestSlot are 0). Value[i] is nil when no node
// asked has sigs[i]. A processed commitment, a ChunkSize above 1 or the
// zero signature is an *InputError before any request.
func (c *Client) GetTransactionsBulk(ctx context.Context, sigs []solana.Signature, opts BulkOptions) (*BulkResult[*rpc.GetTransactionResult], error) {
	b, out, err := transactionsBulk(c, sigs, opts)
	if err != nil {
		return nil, err
	}
	return finish(ctx, c, b, out)
}

// finish runs b, whose chunks write out, on c's pool, and wraps out. A
// cap of 0 is the adaptive one, on the read endpoints the pool would use
// first.
func finish[T any](ctx context.Context, c *Client, b *bulkCall, out []T) (*BulkResult[T], error) {
	if b.inflight == 0 {
		lat := &callLatency{}
		ctx = engine.WithObserver(ctx, lat)
		b.capOf = func() int { return adaptiveCap(lat.apply(c.pool.Capacities(endpoint.RoleRead))) }
	}
	r, err := b.run(ctx)
	return &BulkResult[T]{Value: out, Floor: r.floor, HighestSlot: r.highest, InFlight: r.inflight}, err
}
