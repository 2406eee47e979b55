package retry

import "github.com/solroute/solroute/retrypolicy"

// The JSON-RPC error table (docs/errors.md): whose an error code is, and
// so what a call does with it. Sources: JSON-RPC 2.0 §5.1 (the reserved
// codes, and -32000 to -32099 "reserved for implementation-defined
// server-errors") and agave's rpc-client-api custom_error.rs, which
// defines -32001 to -32019 (rpc.rs says when each is returned).
//
// An error is the endpoint's when another endpoint may answer the same
// request: the node failed (internal error), does not keep what was
// asked (a cleaned-up block, transaction history, long-term storage, a
// secondary index, a snapshot), aborted a scan by its own limits, or is
// behind. It is the caller's when any endpoint at the same slot would
// answer the same: the request is wrong (parse, invalid request or
// params, an unknown method), the transaction itself fails (its
// simulation, signatures, precompiles, version), or the chain says so
// (a skipped slot, the epoch-rewards period).

// rpcCode is one row of the table.
type rpcCode struct {
	code  int
	name  string
	cause retrypolicy.Cause
	// gap marks an endpoint's error that says this node does not keep or
	// reach what was asked (a block, history, an index, a snapshot), or
	// stopped a scan at its own limit: a fact of its configuration, not a
	// sign that it fails requests, so it puts nothing in doubt.
	gap bool
	// lacks marks, among the gaps, the answers that say this node lacks
	// the ledger history a history read asks for (history off, a block
	// below its first one with no long-term storage, long-term storage
	// down or missing the epoch boundary): the pool avoids the endpoint
	// for that method for a while (pool.Settings.HistoryAvoid;
	// plans/018-history-section.md). A skipped slot (-32007, -32009) is
	// not one: it is the chain's answer, which every endpoint repeats.
	lacks bool
}

// rpcCodes is the table. A code not listed is the endpoint's inside
// -32099..-32000 (a server error agave does not define: a provider's
// own) and the caller's outside it.
var rpcCodes = [...]rpcCode{
	// JSON-RPC 2.0.
	{-32700, "parse error", retrypolicy.RPCApplication, false, false},
	{-32600, "invalid request", retrypolicy.RPCApplication, false, false},
	{-32601, "method not found", retrypolicy.RPCApplication, false, false},
	{-32602, "invalid params", retrypolicy.RPCApplication, false, false},
	{-32603, "internal error", retrypolicy.RPCEndpoint, false, false},
	// agave custom_error.rs.
	{-32001, "BlockCleanedUp", retrypolicy.RPCEndpoint, true, true},
	{-32002, "SendTransactionPreflightFailure", retrypolicy.RPCApplication, false, false},
	{-32003, "TransactionSignatureVerificationFailure", retrypolicy.RPCApplication, false, false},
	{-32004, "BlockNotAvailable", retrypolicy.NodeBehind, false, false},
	{-32005, "NodeUnhealthy", retrypolicy.NodeBehind, false, false},
	{-32006, "TransactionPrecompileVerificationFailure", retrypolicy.RPCApplication, false, false},
	{-32007, "SlotSkipped", retrypolicy.RPCApplication, false, false},
	{-32008, "NoSnapshot", retrypolicy.RPCEndpoint, true, false},
	{-32009, "LongTermStorageSlotSkipped", retrypolicy.RPCApplication, false, false},
	{-32010, "KeyExcludedFromSecondaryIndex", retrypolicy.RPCEndpoint, true, false},
	{-32011, "TransactionHistoryNotAvailable", retrypolicy.RPCEndpoint, true, true},
	{-32012, "ScanError", retrypolicy.RPCEndpoint, true, false},
	{-32013, "TransactionSignatureLenMismatch", retrypolicy.RPCApplication, false, false},
	{-32014, "BlockStatusNotAvailableYet", retrypolicy.NodeBehind, false, false},
	{-32015, "UnsupportedTransactionVersion", retrypolicy.RPCApplication, false, false},
	{-32016, "MinContextSlotNotReached", retrypolicy.NodeBehind, false, false},
	{-32017, "EpochRewardsPeriodActive", retrypolicy.RPCApplication, false, false},
	{-32018, "SlotNotEpochBoundary", retrypolicy.RPCEndpoint, true, true},
	{-32019, "LongTermStorageUnreachable", retrypolicy.RPCEndpoint, true, true},
	// A rate limit answered as a JSON-RPC error (some providers and
	// proxies answer HTTP 200 this way).
	{429, "rate limited", retrypolicy.RateLimited, false, false},
}

// The implementation-defined server-error range of JSON-RPC 2.0.
const (
	serverErrorLow  = -32099
	serverErrorHigh = -32000
)

// RPCCodeCause returns the cause of a JSON-RPC error code, by the table
// of docs/errors.md: 429 → RateLimited; the node-state refusals (-32004,
// -32005, -32014, -32016) → NodeBehind; the endpoint's errors (-32603,
// -32001, -32008, -32010, -32011, -32012, -32018, -32019, and any other
// code from -32099 to -32000) → RPCEndpoint; anything else →
// RPCApplication.
func RPCCodeCause(code int) retrypolicy.Cause {
	if r, ok := rpcCodeOf(code); ok {
		return r.cause
	}
	if code >= serverErrorLow && code <= serverErrorHigh {
		return retrypolicy.RPCEndpoint
	}
	return retrypolicy.RPCApplication
}

// rpcCodeOf returns the table's row of code; ok is false when it has
// none.
func rpcCodeOf(code int) (rpcCode, bool) {
	for _, r := range &rpcCodes {
		if r.code == code {
			return r, true
		}
	}
	return rpcCode{}, false
}

// LacksHistory reports whether code says that the endpoint lacks the
// ledger history a read asked for: -32001 BlockCleanedUp (below its first
// available block, no long-term storage), -32011
// TransactionHistoryNotAvailable (history off), -32018
// SlotNotEpochBoundary (a gap in its ledger or long-term storage) and
// -32019 LongTermStorageUnreachable. Another endpoint may have it; the
// pool avoids this one for the method for pool.Settings.HistoryAvoid.
func LacksHistory(code int) bool {
	r, ok := rpcCodeOf(code)
	return ok && r.lacks
}

// rpcGap reports whether code is one of the endpoint's errors that say
// only that this node does not keep or reach what was asked (rpcCode.gap).
func rpcGap(code int) bool {
	r, ok := rpcCodeOf(code)
	return ok && r.gap
}
