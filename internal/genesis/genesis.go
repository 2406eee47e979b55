// Package genesis resolves the clusters a configuration names to their
// genesis hash, for config, the root client and the engine's cluster check.
package genesis

import "github.com/gagliardetto/solana-go"

// Of resolves a cluster as a configuration names it:
// "mainnet-beta", "devnet", "testnet" or a base58 genesis hash. It reports
// false for anything else, including "".
func Of(cluster string) (solana.Hash, bool) {
	switch cluster {
	case "mainnet-beta":
		cluster = "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d"
	case "devnet":
		cluster = "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG"
	case "testnet":
		cluster = "4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY"
	}
	h, err := solana.HashFromBase58(cluster)
	if err != nil || h.IsZero() {
		return solana.Hash{}, false
	}
	return h, true
}
