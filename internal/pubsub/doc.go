// Package pubsub is solroute's subscription engine: Solana PubSub
// (WebSocket JSON-RPC) subscriptions held on several endpoints at once,
// deduplicated, delivered in context-slot order, failed over and read back
// so that an endpoint's fault never ends a subscription nor silently loses
// an update.
//
// An Engine takes a set of endpoints (a name, a ws:// or wss:// URL held
// as an endpoint.Secret, a tier, subscribe limits), a clock, a logger and
// a Reader for the HTTP reads it needs after a switch (getMultipleAccounts
// with minContextSlot, getSignatureStatuses). It keeps a warm connection
// to every endpoint, each carrying a slotSubscribe heartbeat, and holds
// each subscription on Settings.Redundancy distinct endpoints, best tier
// first. Identical subscriptions share one stream.
//
// What it guarantees, and why, is plans/016-subscriptions.md. It is
// independent of the HTTP pool: the root client wires it (the Reader over
// the pool, endpoints from the configuration's subscribe role).
package pubsub
