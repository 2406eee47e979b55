// Package methods holds typed Solana JSON-RPC calls over a
// *transport.Client: getHealth, getVersion, getGenesisHash and getBalance.
//
// The model: a [Client] is a thin, stateless wrapper; every call validates
// its input before any request, then goes through the transport (pool,
// failover, retries, shared deadline) like any other call. Results are
// solana-go's own types, so code moving from rpc.Client keeps its types;
// GetBalance adds minContextSlot, which solana-go's GetBalance lacks.
// Failures are the transport's *transport.CallError, except an unhealthy
// node (getHealth), which is an *UnhealthyError, and invalid input, which
// is an *InputError (errors.Is(err, ErrInvalidInput)).
package methods
