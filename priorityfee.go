package solroute

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gagliardetto/solana-go"
)

// The priority-fee estimate (plans/017-sends-that-land.md, "Priority
// fees"): getRecentPrioritizationFees asked of two read endpoints, a
// nearest-rank percentile over the sorted union of their recent blocks,
// one request per endpoint per slot however many callers ask.

// maxFeeAccounts is agave's bound on getRecentPrioritizationFees'
// addresses (MAX_TX_ACCOUNT_LOCKS): a node answers -32602 past it.
const maxFeeAccounts = 128

// PriorityFeeEstimate is what PriorityFee found: a compute-unit price
// and what it was taken over.
type PriorityFeeEstimate struct {
	// MicroLamports is the fee per compute unit, in micro-lamports (what
	// ComputeBudget's SetComputeUnitPrice takes): the percentile asked of
	// the recent blocks' fees for the accounts. 0 when Samples is 0.
	MicroLamports uint64
	// Samples is how many blocks (distinct slots) the percentile is taken
	// over, FirstSlot and LastSlot the oldest and newest of them (0 when
	// none: no node asked had a recent block in its cache).
	Samples             int
	FirstSlot, LastSlot uint64
	// Endpoints names the endpoints whose answers make up the blocks.
	// Failures holds, for each other endpoint asked, why it gave none (a
	// *transport.CallError naming it). One name and no failure: the pool
	// has one read endpoint it could ask.
	Endpoints []string
	Failures  []error
}

// PriorityFee estimates the compute-unit price that lands a transaction
// write-locking accounts now. It is the percentile (0 to 100, to two
// decimals; 0 is the lowest fee, 100 the highest, 50 the median, by
// nearest rank) of the fees of the last 150 blocks, over the union of what two read
// endpoints' getRecentPrioritizationFees say (a slot both report counts
// once, at the higher fee). The endpoints are the best two by the pool's
// order (verified, not cooling down, in step with the cluster's slot,
// tier, cost); one that fails is replaced by the next, and reported in
// Failures. Concurrent calls for the same accounts share one request per
// endpoint, and an answer is reused until the cluster's slot moves on;
// ctx bounds only this caller's wait. More than 128 distinct accounts or
// a percentile out of range is an *InputError before any request; no
// endpoint answering is an error joining each endpoint's.
func (c *Client) PriorityFee(ctx context.Context, accounts []solana.PublicKey, percentile float64) (PriorityFeeEstimate, error) {
	bp, err := feeBasisPoints(percentile)
	if err != nil {
		return PriorityFeeEstimate{}, err
	}
	keys, err := feeAccountKeys(accounts)
	if err != nil {
		return PriorityFeeEstimate{}, err
	}
	u, err := c.fees.get(ctx, c, keys)
	if err != nil {
		return PriorityFeeEstimate{}, err
	}
	return u.estimate(bp), nil
}

// feeBasisPoints reads a percentile in 0..100 as basis points (0..10000),
// so that the rank is integer arithmetic: 90 of 10 samples is exactly the
// ninth, where 0.9*10 in floating point is not exactly 9.
func feeBasisPoints(p float64) (int, error) {
	if math.IsNaN(p) || p < 0 || p > 100 {
		return 0, &InputError{Field: "percentile", Value: strconv.FormatFloat(p, 'g', -1, 64),
			Reason: "want 0 (the lowest fee) to 100 (the highest)"}
	}
	return int(math.Round(p * 100)), nil
}

// feeAccountKeys returns the distinct accounts in base 58, sorted: the
// key of the shared answer (the order and repeats of a caller's list do
// not change a node's answer, which is the highest fee over them).
func feeAccountKeys(accounts []solana.PublicKey) ([]string, error) {
	keys := make([]string, len(accounts))
	for i, a := range accounts {
		keys[i] = a.String()
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	if len(keys) > maxFeeAccounts {
		return nil, &InputError{Field: "accounts", Value: strconv.Itoa(len(keys)) + " distinct accounts",
			Reason: "getRecentPrioritizationFees takes at most 128 (agave's MAX_TX_ACCOUNT_LOCKS)"}
	}
	return keys, nil
}

// feeKey is the cache key of an account set from feeAccountKeys.
func feeKey(keys []string) string { return strings.Join(keys, ",") }
