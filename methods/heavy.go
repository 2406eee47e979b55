package methods

import "time"

// heavyTimeout is the budget Default gives each of
// heavyMethods: one call (every attempt and backoff) instead of the
// endpoints' request_timeout (10 s by default), the caller's context
// still cutting it shorter.
//
// Two minutes: the slowest answers these methods give in normal service
// come from agave's long-term storage (BigTable, which agave gives up on
// after 30 s by default, --rpc-bigtable-timeout) and from account scans,
// and the front ends providers run cut a request off at about a minute
// (nginx's proxy_read_timeout and an AWS load balancer's idle timeout are
// 60 s by default; Cloudflare's 100 s). Half of the budget, 60 s, is
// where an attempt with another endpoint to go to is cut when nothing is
// known of the method's latency (plans/010-adaptive-timeouts.md): an
// answer any such front end lets through arrives before that cut, and the
// failover still has a minute. solana-go's own client waits 5 minutes,
// which holds a connection and a goroutine for an answer no front end
// would still deliver.
const heavyTimeout = 2 * time.Minute

// heavyMethods lists the methods [Default] gives heavyTimeout:
// agave's account scans (getProgramAccounts, the token account lookups,
// getLargestAccounts, getTokenLargestAccounts, getSupply, which scans the
// non-circulating accounts), its reads of many accounts at once
// (getMultipleAccounts), its history lookups that may go to long-term
// storage (getBlock, getBlocks, getBlocksWithLimit, getBlockTime,
// getTransaction, getSignaturesForAddress, getInflationReward, which
// reads the epoch's first blocks, and their deprecated getConfirmed*
// forms), and the DAS searches, which page through an index. Every name
// is one [Default] holds.
func heavyMethods() []string {
	return append(historyMethods(), // history, possibly from long-term storage (history.go)
		// Account scans and wide reads.
		"getLargestAccounts",
		"getMultipleAccounts",
		"getProgramAccounts",
		"getSupply",
		"getTokenAccountsByDelegate",
		"getTokenAccountsByOwner",
		"getTokenLargestAccounts",
		// DAS searches.
		"getAssetsByAuthority",
		"getAssetsByCreator",
		"getAssetsByGroup",
		"getAssetsByOwner",
		"getSignaturesForAsset",
		"getTokenAccounts",
		"searchAssets",
	)
}

// withHeavyTimeouts sets heavyTimeout on the entry of every heavy
// method m holds, and returns m.
func withHeavyTimeouts(m map[string]Method) map[string]Method {
	for _, name := range heavyMethods() {
		if e, ok := m[name]; ok {
			e.Timeout = heavyTimeout
			m[name] = e
		}
	}
	return m
}
