// Package redislimit shares the token buckets of solroute's pool between
// processes through one Redis, so that replicas behind one provider key
// keep that key's one quota between them.
//
// # The model
//
// A [Limiter] holds one go-redis client. [New] builds it from a
// document's [limits] table (config.Limits: doc.Limits, or
// config.DefaultLimits in plain Go), and the program passes it to the
// client in solroute.Hooks.Limits: it is a pool.Limiter, and only a
// program that imports this package links go-redis (the root does not).
// The program closes it, after the clients that use it. Through
// [Limiter.NewBucket] each (endpoint, role) with a rate gets a bucket
// whose state lives in Redis under the key KeyPrefix + name + ":" + role
// (the endpoint's name, never its URL). The state is GCRA's one number,
// the theoretical arrival time, moved by one Lua script that runs
// atomically in one round trip (script.go).
//
// # Leases
//
// A round trip per call would cost more than the call's own admission, so
// a bucket leases tokens in small batches and spends them locally. A
// lease is sized to about a quarter second of this replica's recent
// demand, at most Options.MaxLease and at most burst / Replicas; the next
// one is asked for, off the caller's path, when half of it is left (by a
// replica admitting at least one call per half a lease's lifetime; a
// lighter one asks when a caller finds the lease empty, and that caller
// waits one round trip, so that no token expires unspent). The pool
// calls TakeAt under a mutex and it must never wait: TakeAt and
// ReadyAt only start a request (one goroutine, at most one in flight per
// bucket), and its answer lands in the lease later. ReadyAt says when a
// token may be there: now with tokens leased; a round trip on while a
// request is in flight; the instant the shared bucket will hold them when
// Redis said it is empty. Leased tokens unspent after Options.LeaseTTL
// are dropped. What this costs the quota's precision is in
// plans/013-shared-limits.md: over any window of length W, admissions stay
// within rate × (W + LeaseTTL) + burst, and within rate × W + burst +
// Replicas × lease (a lease is at least one token, so this last is burst
// + Replicas when the burst is below Replicas).
//
// # Time
//
// The instant sent to Redis is the caller's (the pool's clock), not Redis
// TIME: fake clocks work in tests, and every replica means the same
// instant by the same number. Clocks of replicas must agree (NTP): one
// ahead by d can take up to d × rate tokens more, once.
//
// # Faults
//
// Redis down, slow or restarted never blocks a call and never fails one by
// itself. A request that fails, or goes unanswered for Options.OpTimeout
// on the clock, counts Redis as down: the limiter logs it once and counts
// it (Stats.Fallbacks), and every bucket whose lease runs out admits from
// a local fallback share of rate / Replicas and ⌊burst / Replicas⌋, empty
// when it starts: together the shares stay within rate × W + burst over
// any window W. A role whose burst is below Replicas has no whole token
// in that share; its share holds one all the same (the fallback is for
// availability; what the provider refuses above its burst is a 429, a
// call not dispatched), with its first token at a phase drawn from the
// bucket's rng (Options.Seed) uniformly within the share's interval,
// Replicas / rate, and each later one an interval on. Such shares
// together admit at most rate × W + Replicas over any window W (one token
// each at worst, when phases meet), not the bound above; their phases
// spread, the replicas that fall back together admit about one token each
// per interval, each at its own instant, instead of all Replicas at one
// instant every interval. Ten replicas at 5/s with a burst of 5, on a fake
// clock for 10 s: at most 1 at one instant and 7 in any second (10 and 10
// in phase, as before), 50 in all (share_test.go). NewBucket warns of each
// such role. While down, the limiter asks Redis again at every multiple of
// Options.RetryInterval on the clock (one PING from a timer), so that
// replicas learn together that it answers again. Then no bucket admits
// from its fallback any more; each one that did charges what it admitted
// there in the last burst / rate seconds to the shared bucket
// (Stats.Charged), and no lease is asked for until a fifth of OpTimeout
// later, so that every replica's charge is in before anyone leases: across
// the outage the replicas together stay within the bound above (with
// Replicas for burst in the fallback's part, for a role whose burst is
// below it). Every request carries the TAT its bucket last saw, so a
// server restarted without its data gets the buckets back instead of
// granting each burst again. With config.Limits.FailClosed the fallback
// admits nothing: calls wait for Redis until their own deadlines, and
// ReadyAt names the instants an answer may come (the next probe, a probe
// in flight's answer or the instant it is given up on), never a poll, and
// after Close none. The conditions (clocks, the Replicas hint, a replica
// cut off alone) are in plans/013-shared-limits.md.
//
// Errors name no address and quote no URL: go-redis's messages can hold
// both, so the limiter reduces them to a [Kind]. New refuses credentials
// or a database the server does not take with a [*SetupError], and a URL
// no server could take (a port outside 1 to 65535, a negative database)
// as an invalid [limits]; a server that cannot be reached is not an error
// there (the limiter starts on its fallback).
package redislimit
