package endpoint

import "github.com/gagliardetto/solana-go"

// Genesis hashes of the public clusters.
const (
	// MainnetBetaGenesis is mainnet-beta's genesis hash.
	MainnetBetaGenesis = "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d"
	// DevnetGenesis is devnet's genesis hash.
	DevnetGenesis = "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG"
	// TestnetGenesis is testnet's genesis hash.
	TestnetGenesis = "4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY"
)

// GenesisOf resolves a cluster as a configuration names it:
// "mainnet-beta", "devnet", "testnet" or a base58 genesis hash. It reports
// false for anything else, including "".
func GenesisOf(cluster string) (solana.Hash, bool) {
	switch cluster {
	case "mainnet-beta":
		cluster = MainnetBetaGenesis
	case "devnet":
		cluster = DevnetGenesis
	case "testnet":
		cluster = TestnetGenesis
	}
	h, err := solana.HashFromBase58(cluster)
	if err != nil || h.IsZero() {
		return solana.Hash{}, false
	}
	return h, true
}
