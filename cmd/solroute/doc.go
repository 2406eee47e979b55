// Command solroute routes Solana JSON-RPC calls across tiered endpoints and
// shows what the routing does.
//
// Usage:
//
//	solroute demo    [--duration D] [--seed N] [--callers N]
//	solroute probe   --config FILE [--address PUBKEY] [--timeout D] [--json]
//	solroute call    --config FILE [--timeout D] [--attempts] METHOD [PARAMS_JSON]
//	solroute version
//
// demo needs no network and no configuration: it starts an embedded cluster
// of fake endpoints (package fixtures) that rate-limit, stall, reset
// connections and fall behind on a schedule, runs a mixed workload of reads
// and signed transactions through one pool for about ten seconds, and
// prints what happened: calls, retries, fallbacks by tier, latency, each
// endpoint's slot lag and — the point — that no transaction was delivered
// twice.
//
// probe checks each configured endpoint on its own, with no failover: the
// five canaries getHealth, getVersion, getGenesisHash, getBalance and
// getSlot, whether every endpoint is on the configured cluster, and how
// far each one's slot is behind the others'.
//
// call makes one call through the pool and prints the JSON result.
//
// version prints the module version and VCS revision the binary was built
// from (runtime/debug.ReadBuildInfo).
//
// The benchmark is a separate command, cmd/solroute-bench, so that this
// one links neither the benchmark harness nor the clients it compares.
//
// Exit codes: 0 success; 1 a call or a probe failed; 2 a usage or
// configuration error; 3 a sendTransaction (or another call that is never
// resent after dispatch) may have reached a server and was not resent.
//
// Endpoint URLs and header values are secrets: no output of this command
// shows them. Endpoints are named by their configured name only.
//
// docs/cli.md is the full reference.
package main
