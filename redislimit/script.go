package redislimit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// leaseScript is GCRA (the generic cell rate algorithm, as
// go-redis/redis_rate and Stripe's limiter run it) granting a lease of
// several tokens at once. The key holds one number, the theoretical
// arrival time (TAT): the instant, in microseconds since the Unix epoch,
// at which the bucket would be full again. A bucket of burst b refilling
// one token per interval T admits k tokens at now when
// now >= max(TAT, now) + k*T - b*T; the grant moves TAT by k*T.
//
// now is the caller's instant, passed in (never Redis TIME), so that
// every replica's clock and a test's fake clock mean the same thing; the
// price is that a replica whose clock runs ahead by d may take up to d*rate
// more tokens once (plans/013-shared-limits.md).
//
// It grants the most tokens available up to want, or nothing when fewer
// than least are available; nothing is written on a refusal. Either way it
// answers how far TAT is ahead of now afterwards, from which the caller
// knows when k tokens will be there (ahead + k*T - b*T from now, unless
// other replicas take them first). The key expires a minute after the
// bucket is full again: a missing key is a full bucket, so the expiry only
// bounds memory, and the minute's margin keeps a test's fake clock (whose
// instants the key's real-time expiry does not follow) honest.
//
// KEYS[1] the (endpoint, role) key
// ARGV[1] now, microseconds since the Unix epoch
// ARGV[2] T, microseconds per token (fractional)
// ARGV[3] b*T, microseconds
// ARGV[4] want >= 1
// ARGV[5] least, 1 <= least <= want
// returns {granted, ahead}: ahead is max(TAT - now, 0) after the grant,
// in microseconds, rounded up. The 1e-9 in the floor keeps a division that
// should be whole (b*T / T) from landing a hair below it and losing a
// token of burst to floating point.
const leaseScript = `
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local tolerance = tonumber(ARGV[3])
local want = tonumber(ARGV[4])
local least = tonumber(ARGV[5])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local avail = math.floor((now - tat + tolerance) / interval + 1e-9)
if avail > want then avail = want end
if avail < least then
  return {0, math.ceil(tat - now)}
end
tat = tat + avail * interval
redis.call('SET', KEYS[1], tat, 'PX', math.ceil((tat - now) / 1000) + 60000)
return {avail, math.ceil(tat - now)}
`

// script is leaseScript for go-redis (its SHA1 computed once).
var script = redis.NewScript(leaseScript)

// grant is a lease request's answer.
type grant struct {
	// tokens is what Redis granted (0 on a refusal).
	tokens int
	// ahead is how far the bucket's TAT is ahead of the request's instant
	// after it: k tokens are there ahead + k*T - b*T after that instant.
	ahead time.Duration
	// ops counts the round trips it took: 1, or 2 when the script had to
	// be sent again (EVALSHA answered NOSCRIPT: a new or restarted
	// server).
	ops int
}

// errReply is a reply the script cannot have given.
var errReply = errors.New("redislimit: unexpected reply to the lease script")

// lease asks Redis for up to want tokens, at least least, at the instant
// now, on the bucket of key refilling one token per interval up to burst.
func lease(ctx context.Context, c redis.Scripter, key string, now time.Time, interval, tolerance float64, want, least int) (grant, error) {
	keys := []string{key}
	args := []any{now.UnixMicro(), interval, tolerance, want, least}
	g := grant{ops: 1}
	res, err := script.EvalSha(ctx, c, keys, args...).Int64Slice()
	if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		g.ops++
		res, err = script.Eval(ctx, c, keys, args...).Int64Slice()
	}
	if err != nil {
		return g, err
	}
	if len(res) != 2 || res[0] < 0 || res[0] > int64(want) || res[1] < 0 {
		return g, fmt.Errorf("%w: %d values", errReply, len(res))
	}
	g.tokens = int(res[0])
	g.ahead = time.Duration(res[1]) * time.Microsecond
	return g, nil
}
