package bench

import (
	"context"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/transport"
)

// typedClient calls through solroute's own front door: the root client's
// typed GetBalance and its JSON-RPC CallForInto for sends, without
// solana-go's rpc.Client above it. Its requests are written by
// solroute's encoder, as round-robin's are prebuilt bytes: the two
// compare the pool's machinery alone (issue 22).
type typedClient struct {
	sc      *solroute.Client
	account solana.PublicKey
}

// sendConfig is sendTransaction's config object: the transaction is
// base64, as every client of the workload sends it.
type sendConfig struct {
	Encoding string `json:"encoding"`
}

// newTypedClient is solroute's typed calls over the three endpoints, with
// newSolrouteClient's settings.
func newTypedClient(urls []string, o *Options, w *answerWatch) (client, error) {
	_, sc, err := openSolrouteClient(urls, o, pool.DefaultSettings(), transport.DefaultSettings(), w)
	if err != nil {
		return nil, err
	}
	return &typedClient{sc: sc, account: solana.MustPublicKeyFromBase58(balanceAccount)}, nil
}

func (c *typedClient) getBalance(ctx context.Context) (uint64, error) {
	out, err := c.sc.GetBalance(ctx, c.account, solroute.BalanceOptions{Commitment: rpc.CommitmentConfirmed})
	if err != nil || out == nil {
		return 0, err
	}
	return out.Context.Slot, nil
}

func (c *typedClient) sendTransaction(ctx context.Context, tx string) error {
	var sig string
	return c.sc.CallForInto(ctx, &sig, "sendTransaction", []any{tx, sendConfig{Encoding: "base64"}})
}

func (c *typedClient) close() { _ = c.sc.Close() }
