package solroute

import (
	"context"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// BalanceOptions tune GetBalance. The zero value asks with the node's
// default commitment and no minimum context slot.
type BalanceOptions struct {
	// Commitment is processed, confirmed or finalized; "" means the node's
	// default (finalized).
	Commitment rpc.CommitmentType
	// MinContextSlot, when set, is the minimum slot the answer may be
	// evaluated at; a node behind it answers -32016 and the transport asks
	// another endpoint. Nil means none.
	MinContextSlot *uint64
}

// GetBalance returns the lamports of pubkey with the slot the answer was
// evaluated at (result.Context.Slot). Any 32-byte key is valid; an unknown
// commitment is rejected with an *InputError before any request.
func (c *Client) GetBalance(ctx context.Context, pubkey solana.PublicKey, opts BalanceOptions) (*rpc.GetBalanceResult, error) {
	if err := validCommitment(opts.Commitment); err != nil {
		return nil, err
	}
	params := append(make([]any, 0, 2), pubkey) // the wire encoder writes a PublicKey in base58 itself
	if opts.Commitment != "" || opts.MinContextSlot != nil {
		// An rpc.M, as solana-go builds it: the encoder writes it and the
		// slot plan reads it without a JSON round trip (a struct took
		// both through encoding/json: 13 allocations).
		cfg := make(rpc.M, 2)
		if opts.Commitment != "" {
			cfg["commitment"] = opts.Commitment
		}
		if opts.MinContextSlot != nil {
			cfg["minContextSlot"] = *opts.MinContextSlot
		}
		params = append(params, cfg)
	}
	var out required[rpc.GetBalanceResult]
	if err := c.engine.CallForInto(ctx, &out, "getBalance", params); err != nil {
		return nil, err
	}
	return &out.v, nil
}
