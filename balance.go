package solroute

import (
	"context"
	"strconv"

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

// balanceConfig is getBalance's config object.
type balanceConfig struct {
	Commitment     rpc.CommitmentType `json:"commitment,omitempty"`
	MinContextSlot *uint64            `json:"minContextSlot,omitempty"`
}

// AppendJSON appends c as json.Marshal writes it (wire.Appender: the
// request encoder then takes no reflection and no allocation for it), for
// a Commitment validCommitment accepted, which needs no escaping.
func (c balanceConfig) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	if c.Commitment != "" {
		b = append(b, `"commitment":"`...)
		b = append(b, c.Commitment...)
		b = append(b, '"')
	}
	if c.MinContextSlot != nil {
		if c.Commitment != "" {
			b = append(b, ',')
		}
		b = append(b, `"minContextSlot":`...)
		b = strconv.AppendUint(b, *c.MinContextSlot, 10)
	}
	return append(b, '}')
}

// GetBalance returns the lamports of pubkey with the slot the answer was
// evaluated at (result.Context.Slot). Any 32-byte key is valid; an unknown
// commitment is rejected with an *InputError before any request.
func (c *Client) GetBalance(ctx context.Context, pubkey solana.PublicKey, opts BalanceOptions) (*rpc.GetBalanceResult, error) {
	if err := validCommitment(opts.Commitment); err != nil {
		return nil, err
	}
	params := []any{pubkey} // the wire encoder writes a PublicKey in base58 itself, without allocating
	if opts.Commitment != "" || opts.MinContextSlot != nil {
		params = append(params, balanceConfig(opts))
	}
	var out required[rpc.GetBalanceResult]
	if err := c.engine.CallForInto(ctx, &out, "getBalance", params); err != nil {
		return nil, err
	}
	return &out.v, nil
}
