// Package admission is the endpoint pool: it hands out permits to call one
// of many tiered RPC endpoints. Its settings are package pool's; users
// reach it only through solroute.Client.
//
// One [Pool.Acquire] call, bounded by one deadline, picks a candidate for a
// role: the endpoints that serve the role and carry the requested
// capabilities, by tier, rotated round-robin inside a tier (one atomic
// counter per tier and role, no pool-wide lock). Each candidate is tried in
// this order: cooldown (after a rate limit or an ejection) over? a
// concurrency slot free? a token in its bucket? Admission is transactional
// (see internal/rolestate): a refused candidate keeps its tokens and
// slots, and the request falls to a peer, then to a lower tier.
//
// An endpoint that fails Settings.Ejection's After times in a row is ejected
// for a while (see endpoint.Ejection). When ejections block more than half
// the candidates and nothing is free, Acquire does not wait: it admits an
// ejected one anyway, in the same order (panic mode, after Envoy's healthy
// panic threshold), since the few left cannot carry the traffic alone.
//
// When every candidate is blocked, Acquire waits, holding no lock, for the
// earliest of: a slot freed in the role, the first cooldown end or token
// refill it saw, ctx, and the deadline; then it tries again from the top
// tier. The deadline is Request.Deadline, or now plus the smallest
// RequestTimeout of the compatible endpoints, cut to ctx's deadline; no
// permit is granted at or after it, and a [*DeadlineError] says why each
// candidate was blocked.
//
// An endpoint where an attempt, of any role, recently failed in a way that
// leaves a call that must never be sent twice ambiguous is in doubt for
// Settings.DoubtWindow; a request with AvoidDoubt uses it only as a last
// resort, after Settings.DoubtPatience (see Request.AvoidDoubt).
//
// The returned [Permit] carries the attempt's outcome back in one
// [Permit.Done] (a retrypolicy.Outcome; or [Permit.Release] when unused;
// the first call wins), which frees the slot, feeds the endpoint's health
// state machine and its doubt, and wakes waiters. A timed request
// (Request.Timed) also feeds the recent latency of its method on that
// endpoint, which [Permit.Latency] reports (see [Latency]). Time comes only from
// Options.Clock, so tests drive everything with a fake clock.
//
// pool.Settings are what a configuration document sets, taken as written
// (pool.DefaultSettings gives the defaults); [Options] are what code
// supplies (clock, logger, a pool.Bucket factory).
package admission
