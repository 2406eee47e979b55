package registry

import "slices"

// sendMethods lists the methods that change the cluster: role send, class
// NeverAfterDispatch.
func sendMethods() []string {
	return []string{
		"requestAirdrop",
		"sendTransaction",
	}
}

// readMethods lists every other Solana HTTP RPC method: role read, class
// Idempotent. The list is agave's rpc.rs (minimal, bank data, accounts,
// accounts scan, full and deprecated APIs) and every method name
// solana-go v1.14.0's rpc package calls, including the deprecated ones it
// still exposes.
func readMethods() []string {
	return []string{
		"getAccountInfo",
		"getBalance",
		"getBlock",
		"getBlockCommitment",
		"getBlockHeight",
		"getBlockProduction",
		"getBlockTime",
		"getBlocks",
		"getBlocksWithLimit",
		"getClusterNodes",
		"getEpochInfo",
		"getEpochSchedule",
		"getFeeForMessage",
		"getFirstAvailableBlock",
		"getGenesisHash",
		"getHealth",
		"getHighestSnapshotSlot",
		"getIdentity",
		"getInflationGovernor",
		"getInflationRate",
		"getInflationReward",
		"getLargestAccounts",
		"getLatestBlockhash",
		"getLeaderSchedule",
		"getMaxRetransmitSlot",
		"getMaxShredInsertSlot",
		"getMinimumBalanceForRentExemption",
		"getMultipleAccounts",
		"getProgramAccounts",
		"getRecentPerformanceSamples",
		"getRecentPrioritizationFees",
		"getSignatureStatuses",
		"getSignaturesForAddress",
		"getSlot",
		"getSlotLeader",
		"getSlotLeaders",
		"getStakeMinimumDelegation",
		"getSupply",
		"getTokenAccountBalance",
		"getTokenAccountsByDelegate",
		"getTokenAccountsByOwner",
		"getTokenLargestAccounts",
		"getTokenSupply",
		"getTransaction",
		"getTransactionCount",
		"getVersion",
		"getVoteAccounts",
		"isBlockhashValid",
		"minimumLedgerSlot",
		// simulateTransaction executes nothing on the cluster: a read.
		"simulateTransaction",

		// Deprecated or removed by agave, still called by solana-go v1.14.0.
		"getConfirmedBlock",
		"getConfirmedBlocks",
		"getConfirmedBlocksWithLimit",
		"getConfirmedSignaturesForAddress2",
		"getConfirmedTransaction",
		"getFeeCalculatorForBlockhash",
		"getFeeRateGovernor",
		"getFees",
		"getRecentBlockhash",
		"getSnapshotSlot",
		"getStakeActivation",
	}
}

// Methods returns the name of every method [Default] holds, sorted.
func Methods() []string {
	out := append(readMethods(), sendMethods()...)
	slices.Sort(out)
	return out
}
