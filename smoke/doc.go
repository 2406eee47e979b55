// Package smoke holds opt-in smoke tests that call real Solana RPC
// endpoints. It has no code of its own.
//
// The tests are behind the "smoke" build tag and need a configuration
// document named by SOLROUTE_SMOKE_CONFIG:
//
//	SOLROUTE_SMOKE_CONFIG=smoke/mainnet-public.toml go test -tags smoke -count=1 ./smoke/...
//
// They run the four canaries — getHealth, getVersion, getGenesisHash and
// getBalance of the System Program — through one pool built from the
// document, check the answers' shapes, and check the genesis hash against
// the document's cluster. Without the variable every test skips and says
// why; without the tag only the check that mainnet-public.toml loads runs.
// Nothing here runs in CI against the network.
//
// mainnet-public.toml points at Solana's public mainnet-beta endpoint,
// which needs no key but allows only 100 requests per 10 s per IP: its
// limits keep a run far below that.
package smoke
