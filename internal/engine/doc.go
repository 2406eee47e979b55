// Package engine is solroute's HTTP JSON-RPC executor, the machinery
// behind solroute.Client and package engine's vocabulary: it sends one
// JSON-RPC call (or batch) through the pool (internal/admission), proves
// how far each attempt went, classifies every failure and retries by the
// retry policy (internal/retry), so that many endpoints look like one
// reliable one.
//
// The model, for one call:
//
//   - One shared deadline: min(ctx's deadline, now + the call's budget:
//     the method's own timeout, methods.Method.Timeout, else the pool's
//     default timeout for the method's role), computed once on the pool's
//     clock. It bounds every Acquire, every attempt and every backoff. A
//     call that stops at the caller's deadline, or because no retry could
//     start before it, or whose context ended, matches the context's
//     error.
//   - The loop: acquire a permit for the method's role (avoiding endpoints
//     that already failed this call while others exist) -> POST with a
//     per-attempt timeout, measured on the pool's clock. An attempt is cut
//     before the deadline only when another endpoint can take the call
//     and a retry is left: then, for a read, 3 × its endpoint's recent p99
//     for the method (at least AdaptiveFloor, doubled per retry; see
//     Settings.AttemptTimeout and plans/010-adaptive-timeouts.md); for
//     every other attempt, or with Settings.AttemptTimeout set, min(the
//     endpoint's request timeout, Settings.AttemptTimeout or half the
//     call's budget); a send is never cut once it may have been written.
//     Always cut to the time left -> build the attempt's one
//     retrypolicy.Outcome -> report it to the permit (Permit.Done: health,
//     cooldown, doubt) -> ask the retry policy -> wait the decided delay on
//     the pool's clock (none when an endpoint the call has not failed on can
//     take the retry) -> next attempt, or stop.
//   - Dispatch state, proven with net/http/httptrace: NotDispatched until a
//     connection is handed the request, MaybeDispatched from then (or from
//     any write hook) until GotFirstResponseByte, Answered after. A call
//     that is not Idempotent (sendTransaction, requestAirdrop, an
//     undeclared method, a batch holding one) is never resent once a server
//     may have acted on an attempt (retrypolicy.Outcome.MayHaveActed, the
//     one rule, applied by the retry decision); the *CallError then matches
//     ErrAmbiguousDispatch and its doc says what to do. Such calls ask the
//     pool to avoid endpoints in doubt (pool.Request.AvoidDoubt).
//
// Every method's role and class come from methods/registry, including calls
// made through solana-go's client: [Engine] implements rpc.JSONRPCClient,
// so rpc.NewWithCustomRPCClient(client) routes all of solana-go through the
// pool.
//
// Secrets: endpoint URLs and header values never appear in an error, a log
// line or an attempt record. Errors name endpoints by their Spec.Name; a
// *url.Error from net/http is replaced by its inner error, and error texts
// are redacted against each endpoint's URL parts and header values and
// their tokens, raw, decoded, URL- and JSON-escaped and in base64 (see
// plans/003-transport.md). URL user info is sent as Basic authentication
// unless an Authorization header is configured.
//
// See plans/003-transport.md for the classification table and the
// dispatch-state rules.
package engine
