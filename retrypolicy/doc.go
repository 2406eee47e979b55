// Package retrypolicy is the vocabulary of one attempt and of the retry
// decision that follows it, and the retry policy's settings.
//
// An attempt's [Outcome] is built once, by the call that made it: its
// [Cause] (why it failed; 0 on success), the proven [DispatchState] (did
// the request reach a server?), the answer's HTTP status and JSON-RPC
// code, the provider's delay, and whose [Fault] a failure was. One rule
// decides whether a server may have acted on it, [Outcome.MayHaveActed]:
// a call whose [Class] is not [Idempotent] (a send, an airdrop, a method
// nobody declared) is never resent once it may have, and fails with
// solroute.ErrAmbiguousDispatch instead. Every attempt's [Decision] names
// the [Rule] that made it (retry, transparent retry, max retries, budget,
// never after dispatch, ...), so code can branch on it without reading its
// Reason. Each enum prints, and marshals as text, by its kebab-case name.
//
// [Settings] tune the decision (retries, transparent retries, backoff, the
// provider's Retry-After, the retry budget shared by a client's calls);
// they are a configuration document's [retry] table, taken as written
// ([DefaultSettings] gives the defaults). [Usage] is the budget's state
// (solroute.Client.RetryBudget).
//
// The rules themselves, their order and their sources are in
// plans/002-retry-policy.md and docs/errors.md; the machinery that applies
// them is the client's.
package retrypolicy
