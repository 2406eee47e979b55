// Package retrypolicy decides, for one failed attempt of one JSON-RPC call,
// whether to try again, after how long, and where.
//
// Every decision is a function of facts the transport proved (the [Cause],
// the [DispatchState]), the operation's [Class], the attempt count, the
// provider's requested delay, the time left before the call's deadline and a
// retry budget shared by all calls of one client. The package imports
// nothing of solroute's and sends nothing.
package retrypolicy
