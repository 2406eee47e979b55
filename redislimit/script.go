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
// Before granting it applies what a replica carries back from an outage:
// floor, the TAT that replica last saw (a server restarted without its
// data has forgotten it: TAT never moves back otherwise, so the floor
// changes nothing on a server that kept it), and charge, the tokens that
// replica admitted from its fallback share in the last burst × T, moved
// onto TAT as if Redis had granted them (TAT may then be past now + b*T:
// nothing is granted until it comes back).
//
// It grants the most tokens available up to want, or nothing when fewer
// than least are available. It writes only what changed: a refusal that
// carried no charge and no floor writes nothing. Either way it answers how
// far TAT is ahead of now afterwards, from which the caller knows when k
// tokens will be there (ahead + k*T - b*T from now, unless other replicas
// take them first). The key expires a minute after the bucket is full
// again: a missing key is a full bucket, so the expiry only bounds memory,
// and the minute's margin keeps a test's fake clock (whose instants the
// key's real-time expiry does not follow) honest.
//
// KEYS[1] the (endpoint, role) key
// ARGV[1] now, microseconds since the Unix epoch
// ARGV[2] T, microseconds per token (fractional)
// ARGV[3] b*T, microseconds
// ARGV[4] want >= 0 (0: only the floor and the charge)
// ARGV[5] least, 1 <= least <= want (0 when want is 0)
// ARGV[6] floor, microseconds since the Unix epoch (0: none)
// ARGV[7] charge >= 0, tokens
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
local floor = tonumber(ARGV[6])
local charge = tonumber(ARGV[7])
local stored = tonumber(redis.call('GET', KEYS[1]))
local tat = stored or now
local raised = floor > now and floor > tat
if raised then tat = floor end
if tat < now then tat = now end
tat = tat + charge * interval
local avail = 0
if want > 0 then
  avail = math.floor((now - tat + tolerance) / interval + 1e-9)
  if avail > want then avail = want end
  if avail < least then avail = 0 end
end
tat = tat + avail * interval
if avail > 0 or charge > 0 or raised then
  redis.call('SET', KEYS[1], tat, 'PX', math.ceil((tat - now) / 1000) + 60000)
end
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
	// floor is the TAT after it, in microseconds since the Unix epoch,
	// rounded down: what the next request passes as its floor.
	floor int64
	// ops counts the round trips it took: 1, or 2 when the script had to
	// be sent again (EVALSHA answered NOSCRIPT: a new or restarted
	// server).
	ops int
}

// ask is one request's arguments.
type ask struct {
	// now is the request's instant; interval and tolerance are T and b*T
	// in microseconds.
	now                 time.Time
	interval, tolerance float64
	// want and least: the tokens asked for (0: none, only floor and
	// charge) and the fewest accepted.
	want, least int
	// floor is the TAT last seen, microseconds since the Unix epoch (0:
	// none); charge the fallback admissions carried back.
	floor  int64
	charge int
}

// errReply is a reply the script cannot have given.
var errReply = errors.New("redislimit: unexpected reply to the lease script")

// lease runs the script with a on the bucket of key.
func lease(ctx context.Context, c redis.Scripter, key string, a ask) (grant, error) {
	keys := []string{key}
	now := a.now.UnixMicro()
	args := []any{now, a.interval, a.tolerance, a.want, a.least, max(a.floor, 0), a.charge}
	g := grant{ops: 1}
	res, err := script.EvalSha(ctx, c, keys, args...).Int64Slice()
	if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		g.ops++
		res, err = script.Eval(ctx, c, keys, args...).Int64Slice()
	}
	if err != nil {
		return g, err
	}
	if len(res) != 2 || res[0] < 0 || res[0] > int64(a.want) || res[1] < 0 {
		return g, fmt.Errorf("%w: %d values", errReply, len(res))
	}
	g.tokens = int(res[0])
	g.ahead = time.Duration(res[1]) * time.Microsecond
	g.floor = now + res[1] - 1
	return g, nil
}
