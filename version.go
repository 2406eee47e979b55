package solroute

import (
	"context"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// GetVersion returns the solana-core version and feature set of the node
// that answered.
func (c *Client) GetVersion(ctx context.Context) (*rpc.GetVersionResult, error) {
	var out required[rpc.GetVersionResult]
	if err := c.engine.CallForInto(ctx, &out, "getVersion", nil); err != nil {
		return nil, err
	}
	return &out.v, nil
}

// GetGenesisHash returns the cluster's genesis hash (which cluster the
// endpoints serve: mainnet-beta, devnet, testnet).
func (c *Client) GetGenesisHash(ctx context.Context) (solana.Hash, error) {
	var out required[solana.Hash]
	if err := c.engine.CallForInto(ctx, &out, "getGenesisHash", nil); err != nil {
		return solana.Hash{}, err
	}
	return out.v, nil
}
