// Package pool holds the settings of solroute's endpoint pool: which
// endpoint a call goes to, in what order, and when one is held back
// (ejection after consecutive failures, doubt after an ambiguous failure,
// lag behind the other endpoints' slot). A configuration document's
// [pool] and [pool.ejection] tables decode into [Settings];
// [DefaultSettings] gives the defaults, and solroute.Options.Pool takes
// them in plain Go.
//
// [Bucket] is what a token bucket shared between processes implements,
// and a [Limiter] supplies such buckets (package redislimit's does, and
// solroute.Hooks.Limits takes it): the pool asks the bucket, and nothing
// else, for each (endpoint, role)'s rate.
//
// The pool itself (tiers, the balancing inside a tier, admission, the
// health machine) is the client's machinery: it is reached through
// solroute.Client, and its state is read through Client.Snapshot. See
// plans/001-endpoint-pool.md and plans/008-balancing.md.
package pool
