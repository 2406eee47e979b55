// Package methods is the method registry: every Solana HTTP JSON-RPC
// method name mapped to the role that serves it, the retry class that
// governs it and its budget, and the way to declare the methods it does
// not know (a provider's own).
//
// The model: a [Registry] is an immutable table built once ([Default]) and
// extended only by copying ([Registry.Declare], solroute.Options.Methods, a
// configuration document's [methods] tables). The client looks up every
// call's method there, including calls made through solana-go's own
// client, so each call is routed to the right role and retried by the
// right rule:
//
//   - sendTransaction, requestAirdrop and the providers' send methods
//     (Jito's sendBundle) change the cluster: role send, class
//     NeverAfterDispatch (never resent once they may have reached a server);
//   - every other known method reads: role read, class Idempotent (this
//     includes simulateTransaction, which changes nothing, and the
//     providers' reads: the DAS API, getPriorityFeeEstimate, Jito's reads);
//     the heavy ones (account scans, blocks, history) have a budget of two
//     minutes instead of the endpoints' request_timeout;
//   - an unknown method is routed as a read but classed NeverAfterDispatch:
//     nothing is known of its effects, so it is resent only when an attempt
//     proves no server acted, and reported ambiguous otherwise, unless the
//     caller declares it.
//
// The typed calls (GetBalance, GetHealth, ...) are solroute.Client's.
package methods
