// Command solroute routes Solana JSON-RPC calls across tiered endpoints and
// shows what the routing does.
//
// Usage:
//
//	solroute demo       [--duration D] [--seed N] [--callers N] [--metrics ADDR]
//	solroute serve-fake [--out FILE] [--seed N]
//	solroute probe      --config FILE [--address PUBKEY] [--timeout D] [--json]
//	solroute call       --config FILE [--timeout D] [--attempts] METHOD [PARAMS_JSON]
//	solroute send       --config FILE [--confirm --last-valid-block-height N [--rebroadcast D] [--commitment C]]
//	                    [--preflight-commitment C | --skip-preflight] [--timeout D] [--json] TX
//	solroute confirm    --config FILE [--commitment C] [--timeout D] [--json] SIGNATURE --last-valid-block-height N
//	solroute version
//
// demo needs no network and no configuration: it starts an embedded cluster
// of fake endpoints (package fixtures) that rate-limit, stall, reset
// connections and fall behind on a schedule, runs a mixed workload of reads
// and signed transactions through one pool for about ten seconds, and
// prints what happened, with a legend for every column: calls, retries,
// fallbacks by tier, latency, each endpoint's slot lag and — the point —
// that no transaction was delivered twice.
//
// serve-fake keeps a fake cluster up on loopback until interrupted
// (package fixtures' Mainnet preset, on a ledger) and writes a ready
// configuration document for it, so that probe, call, send and confirm can
// be tried without a provider; a loopback URL it names signs transactions
// on the fake chain's blockhash.
//
// probe checks each configured endpoint on its own, with no failover: the
// five canaries getHealth, getVersion, getGenesisHash, getBalance and
// getSlot, whether every endpoint is on the configured cluster, and how
// far each one's slot is behind the others'.
//
// call makes one call through the pool and prints the JSON result.
//
// send sends a signed transaction (its wire bytes in base64 or base58,
// checked before any request) through the pool and prints its signature; with --confirm it
// then waits for the verdict, as confirm does, optionally rebroadcasting
// the identical bytes. confirm finds out what became of a transaction
// already sent, from its signature and its blockhash's
// lastValidBlockHeight, without sending anything (package confirm): landed,
// landed with an on-chain error, expired, or unknown within --timeout.
//
// version prints the module version and VCS revision the binary was built
// from (runtime/debug.ReadBuildInfo).
//
// The benchmark is a separate command, tools/cmd/solroute-bench (in the
// repository's tools module), so that this one links neither the
// benchmark harness nor the clients it compares.
//
// Exit codes: 0 success; 1 a call, a probe or a send failed; 2 a usage or
// configuration error; 3 a sendTransaction (or another call that is never
// resent after dispatch) may have reached a server and was not resent. A
// resolution (confirm, send --confirm) exits with its verdict: 0 landed,
// 4 landed with an on-chain error, 5 expired, 6 unknown.
//
// Endpoint URLs and header values are secrets: no output of this command
// shows them. Endpoints are named by their configured name only.
//
// docs/cli.md is the full reference.
package main
