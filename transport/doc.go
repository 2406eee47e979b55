// Package transport is the vocabulary of one call through the pool: what
// a user sets, matches on and watches of it. The call itself (the loop of
// acquire, attempt, report, decide and wait; hedging; attempt timeouts;
// the HTTP attempt and what it proved) is solroute.Client's machinery.
//
// [Settings] tune a client's calls: retries (the retry policy's
// Settings), the response size limit, attempt timeouts, hedged reads,
// monotonic reads and the slot probe. They are a configuration document's
// [transport] and [retry] tables, taken as written ([DefaultSettings]
// gives the defaults), and solroute.Options.Transport in plain Go.
//
// A failed call is a [*CallError]: its method, its final cause, every
// [Attempt] (endpoint, tier, outcome, duration, admission wait, timeout,
// decision) and the errors that ended it, reachable with errors.As: a
// [*RPCError] (a JSON-RPC error), a [*StatusError] (an HTTP failure
// status), a [*StaleError] (an answer older than the read accepts), an
// [*OutlierError] (an answer further ahead than the other endpoints agree
// on). A send that may have reached a server is never resent: its
// CallError is Ambiguous and matches solroute.ErrAmbiguousDispatch.
//
// An [Observer] sees every call and every attempt as they happen
// (solroute.Client.Observe, solroute.WithObserver): package metrics and
// package tracing are Observers. Nothing an Observer, an error or a log
// line is given holds a URL or a header value: endpoints are named by
// their Name only.
//
// See plans/003-transport.md for the classification table and the
// dispatch-state rules.
package transport
