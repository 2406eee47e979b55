// Package retry decides, for one failed attempt of one JSON-RPC call,
// whether to try again, after how long, and where: the machinery behind
// package retrypolicy's vocabulary and settings, which users name.
//
// Every decision is a function of one attempt's retrypolicy.Outcome (built by the
// transport: the Cause, the proven DispatchState, the answer's status
// and code, whose Fault it was), the operation's Class, the retries already made,
// the provider's requested delay, the time left before the call's deadline
// and a retry budget shared by all calls of one client. The package imports
// only retrypolicy of solroute's and sends nothing.
//
// The model has three layers:
//
//   - [Decide] is the whole rule set as one pure function of (settings,
//     attempt, retries so far): ordered checks, each with its reason,
//     defaulting to stop. It is what the exhaustive tests pin down.
//   - A [Policy] holds retrypolicy.Settings (taken as written;
//     DefaultSettings gives the defaults) and the retry budget (an
//     account of tokens: each call deposits ratio of a token, each retry
//     above a floor of concurrent retries spends one). One Policy serves
//     one client and is safe for concurrent use.
//   - A [Call] is one call's state: [Policy.Begin] starts it, [Call.Next]
//     decides after each failed attempt (Decide, then the budget), and
//     [Call.End] releases it. A Call is used by one goroutine at a time.
//
// Retries that provably never left the client (a connection error with
// NotDispatched) are transparent, as in gRPC (gRFC A6): immediate,
// uncounted against MaxRetries, outside the budget, and bounded by the
// deadline and by Settings.TransparentRetries. An operation that is not
// Idempotent is never resent once a server may have acted on it
// (Outcome.MayHaveActed, [Input.Ambiguous]): the one rule of
// never-after-dispatch, owned here. A counted
// retry that fails over to an endpoint the call has not failed on
// (Input.ElsewhereAvailable) waits neither backoff nor provider delay.
//
// Time enters only as durations (Outcome.ProviderDelay, Input.TimeLeft)
// and as the now passed to [ParseRetryAfter]: the package
// reads no clock and sleeps nowhere; the caller waits Decision.Delay on its
// own clock. Randomness (full jitter) comes from Settings.Jitter.
package retry
