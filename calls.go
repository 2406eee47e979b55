package solroute

import (
	"context"
	"net/http"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
)

// The raw calls: any JSON-RPC method, through the pool, its failover and
// its retry rules. solana-go's own client over the same pool is RPC().

// Client is a solana-go JSON-RPC client: rpc.NewWithCustomRPCClient(c)
// works too.
var _ rpc.JSONRPCClient = (*Client)(nil)

// CallForInto calls method with params and decodes the result into out
// with encoding/json (a JSON null result sets a pointer out to nil, as
// solana-go's own client does; out may be nil to discard the result). The
// method's role, retry class and budget come from the registry
// (Registry). For a read that carries a slot, the answer's slot feeds the
// pool's lag tracking and, with monotonic reads, the caller's high-water
// mark. A failure is a *transport.CallError.
func (c *Client) CallForInto(ctx context.Context, out any, method string, params []any) error {
	return c.engine.CallForInto(ctx, out, method, params)
}

// CallWithCallback calls method and hands the raw HTTP exchange to
// callback, under the same rules as CallForInto. Only a 2xx response
// reaches the callback (its body bounded by the response size limit); a
// failure status is classified and retried like any other, and so is an
// answer that is one JSON-RPC error the endpoint is to blame for (a rate
// limit, a node behind, the node's own error). An error from
// the callback ends the call (any endpoint would answer the same) and is
// reachable with errors.Is/As unless its text holds a secret.
func (c *Client) CallWithCallback(ctx context.Context, method string, params []any, callback func(*http.Request, *http.Response) error) error {
	return c.engine.CallWithCallback(ctx, method, params, callback)
}

// CallBatch sends requests as one batch to one endpoint per attempt. Like
// solana-go's own client it sets each request's ID to its index and
// JSONRPC to "2.0". The batch's role is send when any member's is; its
// class is the strictest of its members' (a batch holding a send is never
// resent once it may have reached a server), and its budget the longest
// of its members'. Member errors are returned in the responses; only a
// batch whose every member is rate limited (or every member behind) fails
// as a whole, with a *transport.CallError.
func (c *Client) CallBatch(ctx context.Context, requests jsonrpc.RPCRequests) (jsonrpc.RPCResponses, error) {
	return c.engine.CallBatch(ctx, requests)
}
