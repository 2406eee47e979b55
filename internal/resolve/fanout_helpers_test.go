package resolve_test

import (
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturespec"
)

// sender is one send-only endpoint of a fan-out chain.
type sender struct {
	name string
	// drop: it answers every send with its signature and never forwards
	// it (no ledger behind it).
	drop bool
	// fault, when set, answers every send so (a 429, say).
	fault fixtures.Fault
}

// newFanChain is a chain of two read endpoints and the given send-only
// endpoints, on one ledger and fake clock.
func newFanChain(t *testing.T, senders ...sender) *chain {
	t.Helper()
	clock := clockwork.NewFakeClockAt(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ledger := fixtures.NewLedger()
	l := endpoint.Limits{RequestTimeout: 2 * time.Second}
	on := func() fixtures.Options {
		return fixtures.Options{Clock: clock, Ledger: ledger, Slots: &fixtures.SlotOptions{Start: 1000}}
	}
	members := []fixtures.Member{{Name: "r1", Read: &l, Options: on()}, {Name: "r2", Read: &l, Options: on()}}
	for _, s := range senders {
		m := fixtures.Member{Name: s.name, Send: &l, Options: on()}
		if s.drop {
			m.Options = fixtures.Options{Clock: clock}
		}
		if s.fault.Kind != fixtures.None {
			m.Options.Script = fixtures.ByMethod(map[string]fixtures.Fault{"sendTransaction": s.fault})
		}
		members = append(members, m)
	}
	c := fixtures.NewCluster(members)
	return chainOver(t, clock, ledger, c, fixturespec.Specs(c))
}

// sendsTo counts the sendTransaction requests the endpoint named name
// read.
func (ch *chain) sendsTo(name string) int { return ch.c.Server(name).Stats().Calls["sendTransaction"] }

// tally is a resolve.CopyWatcher that counts.
type tally struct {
	mu                      sync.Mutex
	sent, accepted, refused map[string]int
	first                   map[string]int
}

func newTally() *tally {
	return &tally{sent: map[string]int{}, accepted: map[string]int{}, refused: map[string]int{}, first: map[string]int{}}
}

func (t *tally) CopyEnded(name string, accepted, refused bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sent[name]++
	if accepted {
		t.accepted[name]++
	}
	if refused {
		t.refused[name]++
	}
}

func (t *tally) FirstAccepted(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.first[name]++
}
