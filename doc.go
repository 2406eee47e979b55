// Package solroute makes many Solana JSON-RPC endpoints behave as one
// reliable endpoint, for bots and indexers written in Go.
//
// Open a configuration document, or describe the endpoints in plain Go,
// and use solana-go's own client over the pool:
//
//	c, err := solroute.Open("rpc.toml") // or solroute.New(solroute.Options{Endpoints: ...})
//	if err != nil {
//		log.Fatal(err) // every problem at once, with its line; never a URL
//	}
//	defer c.Close()
//	slot, err := c.RPC().GetSlot(ctx, rpc.CommitmentConfirmed)
//
// # The model
//
// Endpoints sit in tiers (0 is preferred, then 1, ...) and serve roles:
// reads, sends, or both. Each (endpoint, role) has its own token bucket
// (requests per second and burst), concurrency cap, cooldown after a
// provider's rate limit, health state and counters. Every call gets one
// deadline (the smallest request timeout of the endpoints that can serve
// it, or the context's, if sooner) that bounds waiting for an endpoint,
// every attempt and every backoff. A call goes to a free endpoint of the
// best tier (inside it, the cheaper of two drawn at random, by recent
// latency and load: a slow or hanging peer gets almost nothing), to a peer
// when one is saturated or cooling down, to a lower tier when a whole tier
// is, and waits for the earliest refill, freed slot or cooldown end when
// all are blocked.
//
// Every attempt's outcome feeds one retry policy: failures of an endpoint
// (down, slow, rate-limited, erroring, behind) are retried on another,
// within a retry budget; answers any endpoint would repeat are not.
//
// # What it guarantees
//
// A send (sendTransaction, requestAirdrop, a provider's send, a method
// nobody declared, a batch holding one) is never resent once a server may
// have acted on it: it is retried only when an attempt proves no server
// did, and otherwise its error matches ErrAmbiguousDispatch, so you check
// whether it landed before signing again. URLs and header values, which
// carry API keys, appear in no error, log line or snapshot. Limits are
// never exceeded. README.md lists each guarantee with the test that
// attacks it.
//
// # Where things are
//
// Configuration: docs/config.md (the document), package config. Tunables:
// transport.Settings (retries, timeouts, hedging), pool.Settings
// (ejection, doubt), endpoint.Limits; each has DefaultSettings. Errors:
// transport.CallError names every attempt's endpoint, cause and decision.
// The packages under this one are the architecture: endpoint, pool,
// retrypolicy, transport, registry, methods, config, fixtures (fake
// endpoints for tests).
package solroute
