// Package pool hands out permits to call one of many tiered RPC endpoints.
//
// One [Pool.Acquire] call, bounded by one deadline, picks a candidate for a
// role: endpoints are ordered by tier, rotated round-robin inside a tier,
// and admitted only when their cooldown is over, a concurrency slot is free
// and a token is in their bucket. When every candidate is blocked, Acquire
// waits for the earliest release, refill or cooldown end, never past the
// deadline. The returned [Permit] carries the outcome back.
package pool
