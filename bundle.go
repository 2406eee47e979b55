package solroute

import (
	"context"
	"errors"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/internal/bundles"
	"github.com/solroute/solroute/internal/engine"
)

// SendBundle sends txs as one Jito bundle (at most 5 signed transactions,
// executed in order and atomically: all land in one slot or none does)
// to an endpoint carrying the capability "bundles" (a block engine
// declared with BlockEngine, or a provider's RPC that proxies bundles),
// and returns the bundle id the engine answers (the hex SHA-256 of the
// transactions' first signatures, for getBundleStatuses).
//
// Before any request it refuses, with an *InputError: no transaction or
// more than 5, a nil one, one not fully signed or whose signatures do
// not verify, one that does not serialize or is over 1232 bytes, two with
// the same first signature. The bundle goes base64 with its encoding
// param. sendBundle is never sent twice once a server may have acted: an
// attempt that ends without proof that none did fails with an error
// matching ErrAmbiguousDispatch; resolve each transaction's signature
// (Resolve) before sending any of them again.
func (c *Client) SendBundle(ctx context.Context, txs []*solana.Transaction) (string, error) {
	encoded, _, err := bundles.Check(txs)
	if err != nil {
		var p *bundles.Problem
		if errors.As(err, &p) {
			return "", &InputError{Field: p.Field, Value: p.Value, Reason: p.Reason}
		}
		return "", err
	}
	var id string
	params := []any{encoded, map[string]any{"encoding": "base64"}} // written by the encoder itself (wire: config objects)
	if err := c.engine.CallForInto(engine.WithCapabilities(ctx, bundles.Capability), &id, "sendBundle", params); err != nil {
		return "", err
	}
	return id, nil
}
