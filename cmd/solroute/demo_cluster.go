package main

import (
	"context"
	"slices"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/fixturespec"
	"github.com/solroute/solroute/transport"
)

// The demo's endpoints: a provider mix, as a bot on mainnet has. Each
// misbehaves in its own way, and every one drifts 0 to 5 slots behind the
// cluster's tip (fixtures.Drift), on a chain that stalls (demoStalls).
const (
	// demoPrimaryA (tier 0) answers HTTP 429 with Retry-After: 1 to every
	// request between demoRateLimitFrom and demoRateLimitUntil of the run,
	// and lies (fixtures.MainnetLies): its getSlot is 3 slots ahead, its
	// block heights 40 blocks ahead, its status cache stale.
	demoPrimaryA = "primary-a"
	// demoPrimaryB (tier 0) has latency spikes on some reads, resets or
	// never answers some sendTransaction requests after reading them (the
	// sender cannot know whether the transaction was forwarded), and
	// garbles demoGarbleRate of its answers (fixtures.Garbled): a result
	// with an error beside it, a duplicate or case-variant context.
	demoPrimaryB = "primary-b"
	// demoPrimaryC (tier 0) serves reads only; at demoLagFrom of the run
	// it falls demoLagSlots behind the others, as a node that restarted
	// from an older snapshot does.
	demoPrimaryC = "primary-c"
	// demoPrimaryD (tier 0) serves reads only, and answers
	// demoNodeErrorRate of them at once with the node's own JSON-RPC
	// errors (fixtures.EndpointErrors: -32603 Internal error).
	demoPrimaryD = "primary-d"
	// demoBackup (tier 1) behaves.
	demoBackup = "backup"
	// demoDead (tier 1) serves reads only, and never answers.
	demoDead = "dead"
	// demoLastResort (tier 2) serves reads only and resets some
	// connections, before or after reading the request.
	demoLastResort = "last-resort"
)

// The shares of requests primary-b garbles and primary-d fails.
const (
	demoGarbleRate    = 0.05
	demoNodeErrorRate = 0.3
)

// The chain's stalls: the first at demoStallFrom of the run, each
// fixturedata.MainnetStallFor (12 s) long, then about every
// fixturedata.MainnetStallEvery (90 s). A run shorter than the stall ends
// inside it.
const demoStallFrom = 0.30

// demoStalls is the chain's stall schedule for a run of duration.
func demoStalls(seed uint64, duration time.Duration) *fixtures.Stalls {
	return &fixtures.Stalls{First: time.Duration(float64(duration) * demoStallFrom),
		Every: fixturedata.MainnetStallEvery, For: fixturedata.MainnetStallFor, Seed: seed}
}

// The rate-limit window of demoPrimaryA, as fractions of the run.
const (
	demoRateLimitFrom  = 0.25
	demoRateLimitUntil = 0.60
)

// demoRetryAfter is the Retry-After demoPrimaryA sends with its 429s.
const demoRetryAfter = "1"

// When demoPrimaryC falls behind, as a fraction of the run, and by how
// many slots: far more than the pool's default max_slot_lag (16), well
// short of agave's health distance (128), so that its getHealth still
// answers ok and only its slots give it away.
const (
	demoLagFrom  = 0.20
	demoLagSlots = 100
)

// demoMembers describes the embedded cluster for a run of duration on
// clock. Every fault is a pure function of (seed, request number), and
// every drift and stall of (seed, the clock), so a seed replays the same
// faults for the same request order. Every member runs the fixtures'
// slot model on one clock, so they share a tip: their slots differ by
// their lag and their drift only.
func demoMembers(seed uint64, clock clockwork.Clock, duration time.Duration) []fixtures.Member {
	read, send := demoLimits()
	backupRead, backupSend := read, send
	backupRead.RequestsPerSecond, backupRead.BurstCapacity, backupRead.MaxConcurrentRequests = 60, 10, 4
	backupSend.RequestsPerSecond, backupSend.BurstCapacity = 5, 2
	lastRead := read
	lastRead.RequestsPerSecond, lastRead.BurstCapacity, lastRead.MaxConcurrentRequests = 30, 5, 2

	spikes := fixtures.Chaos(seed, 0.08, fixtures.Fault{Delay: 120 * time.Millisecond}, fixtures.Fault{Delay: 300 * time.Millisecond})
	ambiguousSends := fixtures.Chaos(seed+1, 0.25, fixtures.Fault{Kind: fixtures.ResetAfterRead}, fixtures.Fault{Kind: fixtures.Hang})
	garbled := fixtures.Garbled(seed+3, demoGarbleRate)
	primaryB := func(c fixtures.Call) fixtures.Fault {
		if f := garbled(c); f != (fixtures.Fault{}) {
			return f
		}
		if c.Method == "sendTransaction" {
			return ambiguousSends(c)
		}
		return spikes(c)
	}
	resets := fixtures.Chaos(seed+2, 0.15, fixtures.Fault{Kind: fixtures.ResetOnAccept}, fixtures.Fault{Kind: fixtures.ResetAfterRead})

	lies := fixtures.Lies{HeightAhead: fixturedata.MainnetHeightAhead, SlotAhead: fixturedata.MainnetSlotAhead, StaleStatuses: fixturedata.MainnetStaleStatuses}
	n := 0
	opts := func(script fixtures.Script) fixtures.Options {
		n++
		return fixtures.Options{Script: script, Clock: clock, Slots: &fixtures.SlotOptions{
			Drift: &fixtures.Drift{Seed: seed<<8 + uint64(n)}, Stalls: demoStalls(seed, duration)}}
	}
	ms := []fixtures.Member{
		{Name: demoPrimaryA, Tier: 0, Read: &read, Send: &send, Options: opts(nil)},
		{Name: demoPrimaryB, Tier: 0, Read: &read, Send: &send, Options: opts(primaryB)},
		{Name: demoPrimaryC, Tier: 0, Read: &read, Options: opts(nil)},
		{Name: demoPrimaryD, Tier: 0, Read: &read, Options: opts(fixtures.EndpointErrors(seed+4, demoNodeErrorRate))},
		{Name: demoBackup, Tier: 1, Read: &backupRead, Send: &backupSend, Options: opts(nil)},
		{Name: demoDead, Tier: 1, Read: &backupRead, Options: opts(fixtures.Always(fixtures.Fault{Kind: fixtures.Hang}))},
		{Name: demoLastResort, Tier: 2, Read: &lastRead, Options: opts(resets)},
	}
	ms[0].Options.Lies = &lies
	for i := range ms {
		if slices.Contains(demoPubSub, ms[i].Name) {
			ms[i].PubSub = &fixtures.PubSubOptions{}
		}
	}
	return ms
}

// demoLimits are a tier-0 endpoint's read and send limits.
func demoLimits() (read, send endpoint.Limits) {
	read = endpoint.Limits{
		RequestsPerSecond:     120,
		BurstCapacity:         20,
		MaxConcurrentRequests: 8,
		RequestTimeout:        2 * time.Second,
		PauseAfterRateLimit:   500 * time.Millisecond,
	}
	send = endpoint.Limits{
		RequestsPerSecond:     10,
		BurstCapacity:         3,
		MaxConcurrentRequests: 2,
		RequestTimeout:        2 * time.Second,
	}
	return read, send
}

// demoConfig is the configuration a user would write for the cluster: the
// same document type config.Load returns, on the defaults but for a
// shorter backoff.
func demoConfig(c *fixtures.Cluster) *config.Document {
	ts := transport.DefaultSettings()
	ts.Retry.InitialBackoff = 20 * time.Millisecond
	ts.Retry.MaxBackoff = 200 * time.Millisecond
	specs := fixturespec.Specs(c)
	for i := range specs {
		if p := c.PubSub(specs[i].Name); p != nil {
			specs[i].WSURL, specs[i].Subscribe = endpoint.NewSecret(p.URL()), &endpoint.SubscribeLimits{}
		}
	}
	return &config.Document{Cluster: "mainnet-beta", Endpoints: specs, Transport: &ts} // Pool nil: the defaults
}

// rateLimitWindow makes demoPrimaryA answer 429 from demoRateLimitFrom to
// demoRateLimitUntil of the run. It returns when the window is over or ctx
// ends.
func rateLimitWindow(ctx context.Context, clock clockwork.Clock, s *fixtures.Server, duration time.Duration) {
	from := time.Duration(float64(duration) * demoRateLimitFrom)
	until := time.Duration(float64(duration) * demoRateLimitUntil)
	if !sleep(ctx, clock, from) {
		return
	}
	s.SetFault(fixtures.Status(429, demoRetryAfter))
	defer s.SetScript(nil)
	sleep(ctx, clock, until-from)
}

// fallBehind makes demoPrimaryC fall demoLagSlots behind at demoLagFrom of
// the run, after telling stats, so that every read attempt counted since
// may have met the lag. It returns at once when ctx ends first.
func fallBehind(ctx context.Context, clock clockwork.Clock, s *fixtures.Server, duration time.Duration, stats *demoStats) {
	at := time.Duration(float64(duration) * demoLagFrom)
	if !sleep(ctx, clock, at) {
		return
	}
	stats.markLag(demoPrimaryC, demoLagSlots, at)
	s.SetLag(demoLagSlots)
}

// sleep waits d on clock; false means ctx ended first.
func sleep(ctx context.Context, clock clockwork.Clock, d time.Duration) bool {
	t := clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.Chan():
		return true
	case <-ctx.Done():
		return false
	}
}
