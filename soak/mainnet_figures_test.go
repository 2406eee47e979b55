package soak

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// mainnetFigures are what TestSoakMainnet's reads cost (issue 20, N1
// and N2): the attempts per read, the share of them on each endpoint the
// balancer should have stopped picking, the decisions after failed
// attempts by rule, and the retry budget left at the end.
type mainnetFigures struct {
	mu sync.Mutex
	// decisions counts the decisions after failed read attempts, by
	// rule.
	decisions map[retrypolicy.Rule]int
	// laterOnDead counts the read attempts after a call's first that went
	// to the dead reader, and laterOnDeadLast those of them after which
	// the call retried no more (plans/008, "The last chance").
	laterOnDead, laterOnDeadLast int
}

// observe returns ctx with an attempt observer that feeds f.
func (f *mainnetFigures) observe(ctx context.Context) context.Context {
	return engine.WithObserver(ctx, engine.AttemptFunc(func(_ context.Context, method string, a transport.Attempt) {
		if method == "sendTransaction" {
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.decisions == nil {
			f.decisions = map[retrypolicy.Rule]int{}
		}
		if a.Failed() {
			f.decisions[a.Decision.Rule]++
		}
		if a.Number > 1 && a.Endpoint == fixturedata.MainnetDead {
			f.laterOnDead++
			if !a.Decision.Retry {
				f.laterOnDeadLast++
			}
		}
	}))
}

// log reports the figures of m's run.
func (f *mainnetFigures) log(m *mainnetSoak) {
	admitted, total := map[string]uint64{}, uint64(0)
	dead := ""
	for _, sn := range m.pool.Snapshot() {
		if sn.Role == endpoint.RoleRead {
			admitted[sn.Name] += sn.Admitted
			total += sn.Admitted
			if sn.Name == fixturedata.MainnetDead {
				dead = fmt.Sprintf("%s, %d failures, %d ejections", sn.State, sn.Failures, sn.Ejections)
			}
		}
	}
	reads := max(m.reads.Load(), 1)
	var shares []string
	for _, name := range []string{fixturedata.MainnetDead, fixturedata.MainnetFlaky, fixturedata.MainnetGarbled, fixturedata.MainnetLiar,
		fixturedata.MainnetHonestA, fixturedata.MainnetHonestB, fixturedata.MainnetHonestC} {
		shares = append(shares, fmt.Sprintf("%s %d (%.1f%%)", name, admitted[name], 100*float64(admitted[name])/float64(max(total, 1))))
	}
	f.mu.Lock()
	var rules []string
	for _, r := range slices.Sorted(maps.Keys(f.decisions)) {
		rules = append(rules, fmt.Sprintf("%s %d", r, f.decisions[r]))
	}
	later, last := f.laterOnDead, f.laterOnDeadLast
	f.mu.Unlock()
	u := m.client.RetryBudget()
	m.s.t.Logf("mainnet soak costs: %d read attempts for %d reads (%.3f a read); attempts by endpoint: %s; after a failed read attempt: %s; retry budget at the end: %.1f tokens; retries on the dead reader: %d, the call's last: %d; the dead reader at the end: %s",
		total, reads, float64(total)/float64(reads), strings.Join(shares, ", "), strings.Join(rules, ", "), u.Tokens, later, last, dead)
}
