package bench

import (
	"fmt"
	"time"

	"github.com/solroute/solroute/fixtures"
)

// A scenario is the fault applied to endpoint "a", or to every endpoint,
// while a cell measures.
type scenario struct {
	name  string
	title string
	// script returns the fault script of endpoint "a"; nil means healthy.
	script func(seed uint64) fixtures.Script
	// everywhere, when set, is the script of every endpoint instead.
	everywhere fixtures.Script
	// lag, when not 0, is how many slots endpoint "a" falls behind the
	// others when the fault is applied (fixtures.Server.SetLag); it keeps
	// answering every call normally.
	lag uint64
}

// silentLag is how far the lagging-silent scenario's endpoint "a" falls
// behind (issue 13): 100 slots, 40 s, far past any pool's tolerance
// (solroute's MaxSlotLag is 16) and still under agave's 128-slot health
// distance, so the node reports itself healthy and answers every read,
// 100 slots in the past.
const silentLag = 100

// laggingScenario is the scenario whose endpoint "a" lags and answers
// normally.
const laggingScenario = "lagging-silent"

// slowPeerLatency is how long the slow-peer scenario's endpoint "a" takes
// to answer every call (issue 12: a provider degraded to hundreds of
// milliseconds long before it fails outright).
const slowPeerLatency = 300 * time.Millisecond

// scenarios lists every scenario, in report order.
func scenarios() []scenario {
	return []scenario{
		{name: "healthy", title: "Healthy: three endpoints answer normally"},
		{
			name:       "healthy-2ms",
			title:      "Healthy, with a node's own latency: every endpoint answers after 2 ms",
			everywhere: fixtures.Always(fixtures.Fault{Delay: 2 * time.Millisecond}),
		},
		{
			name:  "rate-limited",
			title: "One of three endpoints answers HTTP 429 with Retry-After: 1",
			script: func(uint64) fixtures.Script {
				return fixtures.Always(fixtures.Status(429, "1"))
			},
		},
		{
			name:  "blackholed",
			title: "One of three endpoints accepts and reads every request but never answers",
			script: func(uint64) fixtures.Script {
				return fixtures.Always(fixtures.Fault{Kind: fixtures.Hang})
			},
		},
		{
			name:  "slow-peer",
			title: "One of three endpoints answers every call after 300 ms",
			script: func(uint64) fixtures.Script {
				return fixtures.Always(fixtures.Fault{Delay: slowPeerLatency})
			},
		},
		{
			name:  "resetting",
			title: "One of three endpoints resets half its connections (at accept, or after reading the request)",
			script: func(seed uint64) fixtures.Script {
				return fixtures.Chaos(seed, 0.5,
					fixtures.Fault{Kind: fixtures.ResetOnAccept},
					fixtures.Fault{Kind: fixtures.ResetAfterRead})
			},
		},
		{
			name:  "lagging",
			title: "One of three endpoints is behind: JSON-RPC -32005 (node unhealthy) to every call",
			script: func(uint64) fixtures.Script {
				return fixtures.Always(fixtures.RPC(-32005))
			},
		},
		{
			name:  laggingScenario,
			title: "One of three endpoints falls 100 slots behind and answers every call normally: only its slots tell",
			lag:   silentLag,
		},
	}
}

// ScenarioNames lists every scenario name, in report order: healthy,
// healthy-2ms, rate-limited, blackholed, slow-peer, resetting, lagging,
// lagging-silent.
func ScenarioNames() []string {
	all := scenarios()
	names := make([]string, len(all))
	for i, s := range all {
		names[i] = s.name
	}
	return names
}

// scenarioNamed returns the named scenario.
func scenarioNamed(name string) (scenario, error) {
	for _, s := range scenarios() {
		if s.name == name {
			return s, nil
		}
	}
	return scenario{}, fmt.Errorf("bench: unknown scenario %q (want one of %v)", name, ScenarioNames())
}
