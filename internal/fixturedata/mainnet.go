package fixturedata

import "time"

// The members of the Mainnet preset, by name.
const (
	// MainnetHonestA, MainnetHonestB (tier 0) and MainnetHonestC (tier 1)
	// answer truthfully, each drifting 0 to 5 slots behind the tip.
	MainnetHonestA = "honest-a"
	MainnetHonestB = "honest-b"
	MainnetHonestC = "honest-c"
	// MainnetLiar (tier 0) drifts, and tells MainnetLies.
	MainnetLiar = "liar"
	// MainnetFlaky (tier 0) drifts, and answers MainnetEndpointErrorRate
	// of its reads at once with EndpointErrors.
	MainnetFlaky = "flaky"
	// MainnetGarbled (tier 0) drifts, and answers MainnetGarbleRate of its
	// requests Garbled: a result with an error, duplicate or
	// case-variant keys.
	MainnetGarbled = "garbled"
	// MainnetDead (tier 0, reads only) never answers: it reads every
	// request and hangs (Server.SetDown(true) makes it refuse instead).
	MainnetDead = "dead"
)

// The behaviours of the Mainnet preset, for tests and demos that build a
// cluster of their own on the same mix.
const (
	// MainnetEndpointErrorRate is the share of reads MainnetFlaky answers
	// with a node error.
	MainnetEndpointErrorRate = 0.3
	// MainnetGarbleRate is the share of requests MainnetGarbled garbles.
	MainnetGarbleRate = 0.1
	// MainnetStallFirst, MainnetStallEvery and MainnetStallFor are
	// MainnetStalls's schedule: a first stall 20 s after the origin, then
	// one about every 90 s, each 12 s long (past 10 s: longer than a
	// client that extrapolates slots can bear).
	MainnetStallFirst = 20 * time.Second
	MainnetStallEvery = 90 * time.Second
	MainnetStallFor   = 12 * time.Second
)

// The lies of MainnetLiar (fixtures.Lies): a block height 40 blocks
// ahead, a getSlot 3 slots ahead, a status cache that answers null for 64
// slots after a landing.
const (
	MainnetHeightAhead   = 40
	MainnetSlotAhead     = 3
	MainnetStaleStatuses = 64
)
