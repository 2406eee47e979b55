package methods

// History reads: the methods whose answer comes from the ledger's past
// (the blockstore, or long-term storage behind it), which a node keeps
// only if it was configured to (--enable-rpc-transaction-history, a
// ledger reaching back far enough, BigTable or another store). A read of
// one tries the endpoints that declare history (endpoint.Spec.History)
// first, and the pool avoids, for that method, an endpoint that answered
// it lacks the history asked for (plans/018-history-section.md). getSignatureStatuses reads history
// only when its config asks for it (searchTransactionHistory: the
// pool's ReadsHistory, internal/admission).

// historyMethods lists the methods of Default that read history: agave
// refuses each with -32011 when history is off, or answers it from the
// blockstore and long-term storage (-32001, -32009, -32019 and -32018 for
// getInflationReward, which reads the epoch's first block), and their
// deprecated getConfirmed* forms. Every name is one Default holds.
func historyMethods() []string {
	return []string{
		"getBlock",
		"getBlockTime",
		"getBlocks",
		"getBlocksWithLimit",
		"getInflationReward",
		"getSignaturesForAddress",
		"getTransaction",
		"getConfirmedBlock",
		"getConfirmedBlocks",
		"getConfirmedBlocksWithLimit",
		"getConfirmedSignaturesForAddress2",
		"getConfirmedTransaction",
	}
}

// withHistory marks the history methods of m.
func withHistory(m map[string]Method) map[string]Method {
	for _, name := range historyMethods() {
		e := m[name]
		e.History = true
		m[name] = e
	}
	return m
}
