// Package registry maps every Solana HTTP JSON-RPC method name to the role
// that serves it and the retry class that governs it.
//
// The model: a [Registry] is an immutable table built once ([Default]) and
// extended only by copying ([Registry.With]). The transport looks up every
// call's method there, including calls made through solana-go's own client,
// so each call is routed to the right role and retried by the right rule:
//
//   - sendTransaction, requestAirdrop and the providers' send methods
//     (Jito's sendBundle) change the cluster: role send, class
//     NeverAfterDispatch (never resent once they may have reached a server);
//   - every other known method reads: role read, class Idempotent (this
//     includes simulateTransaction, which changes nothing, and the
//     providers' reads: the DAS API, getPriorityFeeEstimate, Jito's reads);
//   - an unknown method is routed as a read but classed NeverAfterDispatch:
//     nothing is known of its effects, so it is resent only when an attempt
//     proves no server acted, and reported ambiguous otherwise, unless the
//     caller registers it with With.
//
// It is a leaf package (it imports only endpoint and retrypolicy) so that
// transport/ can read it without an import cycle through methods/.
package registry
