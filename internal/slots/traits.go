package slots

// Traits says how a method's request and answer relate to slots (agave's
// rpc.rs and rpc-client-types' config.rs; plans/009-consistency.md).
type Traits struct {
	// Context is true when the result is {context: {slot, ...}, value}
	// (for getProgramAccounts, only with withContext: true; the answer
	// tells).
	Context bool
	// Result is true when the result is the slot itself (getSlot): the
	// endpoint's claim of where it is, which may run ahead of the bank
	// that serves its next read (a fleet behind one URL, a node ahead of
	// its banks). The transport holds such answers to every slot returned
	// before but lets them raise no floor of the banks: a mark of their
	// own (plans/009-consistency.md).
	Result bool
	// Config is the index, in params, of the config object that holds
	// commitment (and minContextSlot); -1 when the method has none.
	Config int
	// MinContextSlot is true when that config accepts minContextSlot.
	MinContextSlot bool
	// Pinned is true when the answer's slot is always at commitment Fixed,
	// whatever the request asks (getSignatureStatuses reads the processed
	// bank).
	Pinned bool
	Fixed  Commitment
	// Cached is true when the answer's context.slot is the slot the node's
	// result cache was filled at rather than its bank's: agave keeps one
	// getLargestAccounts answer per filter, whatever the commitment asked,
	// for up to two hours. Such a slot is comparable only with the same
	// method's answers (plans/009-consistency.md).
	Cached bool
}

// Tracked reports whether the method carries a slot either way.
func (s Traits) Tracked() bool { return s.Context || s.Result || s.MinContextSlot }

// TraitsOf returns how method relates to slots: the zero Traits with Config
// -1 for a method that carries none. Every method agave answers with an
// RpcResponse ({context: {slot}, value}) is here with Context set (for
// getProgramAccounts, only with withContext: the answer tells); the list
// is checked against agave's rpc.rs (internal/slots/testdata/rpcresponse.txt). Sends are left out (a send's
// minContextSlot is the caller's to set), and so are getBlocks and
// getBlocksWithLimit (they refuse processed, and their range is the
// caller's).
func TraitsOf(method string) Traits {
	s := Traits{Config: -1}
	switch method {
	// Accept minContextSlot; answer {context, value}.
	case "getBalance", "getAccountInfo", "getMultipleAccounts", "isBlockhashValid", "getFeeForMessage",
		"simulateTransaction":
		s.Context, s.MinContextSlot, s.Config = true, true, 1
	case "getLatestBlockhash", "getStakeMinimumDelegation":
		s.Context, s.MinContextSlot, s.Config = true, true, 0
	case "getTokenAccountsByOwner", "getTokenAccountsByDelegate":
		s.Context, s.MinContextSlot, s.Config = true, true, 2
	// Accept minContextSlot; answer a plain value (getProgramAccounts a
	// context with withContext).
	case "getSlot":
		s.Result, s.MinContextSlot, s.Config = true, true, 0
	case "getBlockHeight", "getTransactionCount", "getSlotLeader", "getEpochInfo":
		s.MinContextSlot, s.Config = true, 0
	case "getSignaturesForAddress", "getInflationReward", "getProgramAccounts":
		s.MinContextSlot, s.Config = true, 1
	// Answer {context, value}; take no minContextSlot.
	case "getTokenAccountBalance", "getTokenSupply", "getTokenLargestAccounts":
		s.Context, s.Config = true, 1
	case "getSupply", "getBlockProduction":
		s.Context, s.Config = true, 0
	case "getSignatureStatuses":
		s.Context, s.Pinned, s.Fixed = true, true, Processed
	case "getLargestAccounts":
		s.Context, s.Cached, s.Config = true, true, 0
	// Removed from agave (deprecated in solana-labs v1.9), still called by
	// solana-go v1.14.0: {context, value} from a node that still serves them.
	case "getRecentBlockhash", "getFees":
		s.Context, s.Config = true, 0
	case "getFeeCalculatorForBlockhash":
		s.Context, s.Config = true, 1
	case "getFeeRateGovernor":
		s.Context = true
	}
	return s
}
