package methods

// sendMethods lists the methods that change the cluster: role send, class
// NeverAfterDispatch. Besides agave's two, the providers' own send
// methods: Jito's block engine sendBundle (a bundle lands at most once, but
// re-signing after an ambiguous send is exactly the risk).
func sendMethods() []string {
	return []string{
		"requestAirdrop",
		"sendBundle",
		"sendTransaction",
	}
}

// providerReadMethods lists read methods that well-known providers serve
// beside agave's, all without effects: the Digital Asset Standard API (the
// Metaplex specification's names and Helius's), Helius's priority fee
// estimate, and Jito-Solana RPC's bundle simulation. A
// provider that does not serve one answers -32601 (method not found),
// which proves nothing ran.
func providerReadMethods() []string {
	return []string{
		// DAS (developers.metaplex.com/das-api/methods; helius.dev/docs/api-reference/das).
		"getAsset",
		"getAssetBatch",
		"getAssetProof",
		"getAssetProofBatch",
		"getAssetProofs",
		"getAssetSignatures",
		"getAssets",
		"getAssetsByAuthority",
		"getAssetsByCreator",
		"getAssetsByGroup",
		"getAssetsByOwner",
		"getNftEditions",
		"getSignaturesForAsset",
		"getTokenAccounts",
		"searchAssets",
		// Helius.
		"getPriorityFeeEstimate",
		// Jito-Solana RPC.
		"simulateBundle",
	}
}

// sendSideReads lists reads served by the send services beside their
// sends: role send, class Idempotent. Jito's block engine answers these
// at its bundles path under the same limit as its sends (1 request a
// second per IP and region), and serves no read of agave's: the send role
// puts them on the endpoints that carry the bundles capability (a block
// engine, a provider's RPC that proxies bundles, declared with a send
// role) and charges them to those limits (plans/017, "Send-only endpoints
// and bundles").
func sendSideReads() []string {
	return []string{
		"getBundleStatuses",
		"getInflightBundleStatuses",
		"getTipAccounts",
	}
}

// readMethods lists every other Solana HTTP RPC method: role read, class
// Idempotent. The list is agave's rpc.rs (minimal, bank data, accounts,
// accounts scan and full APIs) and every current method name solana-go
// v1.14.0's rpc package calls; deprecatedReads holds the rest.
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
	}
}

// deprecatedReads lists the read methods agave deprecated or removed that
// solana-go v1.14.0 still calls.
func deprecatedReads() []string {
	return []string{
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
