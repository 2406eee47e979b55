package bench

import (
	"context"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/hashicorp/go-retryablehttp"
)

// solanaClient calls through solana-go's typed *rpc.Client, whatever
// JSON-RPC client is under it.
type solanaClient struct {
	rpc     *rpc.Client
	account solana.PublicKey
	// closeIdle releases connections the rpc.Client's own Close misses.
	closeIdle func()
}

func newSolanaClient(c *rpc.Client, closeIdle func()) *solanaClient {
	return &solanaClient{rpc: c, account: solana.MustPublicKeyFromBase58(balanceAccount), closeIdle: closeIdle}
}

// newSolanaGoClient is solana-go's default client: rpc.New(url).
func newSolanaGoClient(url string) *solanaClient {
	return newSolanaClient(rpc.New(url), nil)
}

// newRetryableClient is solana-go over go-retryablehttp's default client
// (its standard *http.Client adapter), the usual way to add retries to
// solana-go. The logger is switched off: by default it prints a line per
// request, URL included.
func newRetryableClient(url string) *solanaClient {
	rc := retryablehttp.NewClient()
	rc.Logger = nil
	jc := jsonrpc.NewClientWithOpts(url, &jsonrpc.RPCClientOpts{HTTPClient: rc.StandardClient()})
	return newSolanaClient(rpc.NewWithCustomRPCClient(jc), rc.HTTPClient.CloseIdleConnections)
}

func (c *solanaClient) getBalance(ctx context.Context) (uint64, error) {
	out, err := c.rpc.GetBalance(ctx, c.account, rpc.CommitmentConfirmed)
	if err != nil || out == nil {
		return 0, err
	}
	return out.Context.Slot, nil
}

func (c *solanaClient) sendTransaction(ctx context.Context, tx string) error {
	_, err := c.rpc.SendEncodedTransaction(ctx, tx)
	return err
}

func (c *solanaClient) close() {
	_ = c.rpc.Close()
	if c.closeIdle != nil {
		c.closeIdle()
	}
}
