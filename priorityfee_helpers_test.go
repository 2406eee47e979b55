package solroute_test

import (
	"context"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/transport"
)

// feeFn is a fake endpoint's fee history (fixtures.Options.PriorityFees).
type feeFn = func(slot uint64, accounts []string) uint64

// feeMember is a read-only member named name with history fees, on clock.
func feeMember(name string, clock clockwork.Clock, fees feeFn) fixtures.Member {
	return fixtures.Member{Name: name, Read: &endpoint.Limits{},
		Options: fixtures.Options{Clock: clock, Slots: &fixtures.SlotOptions{}, PriorityFees: fees}}
}

// feeClient starts members and a client over them on clock, with
// backoffs of 0 so no retry waits on the clock.
func feeClient(t *testing.T, clock clockwork.Clock, members ...fixtures.Member) (*solroute.Client, *fixtures.Cluster) {
	t.Helper()
	cl := fixtures.NewCluster(members)
	ts := transport.DefaultSettings()
	ts.Retry = retrySettings()
	c, err := solroute.New(solroute.Options{Endpoints: cl.Endpoints(), Transport: &ts, Hooks: solroute.Hooks{Clock: clock}})
	if err != nil {
		cl.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Close()
		cl.Close()
	})
	return c, cl
}

// feeRequests counts the getRecentPrioritizationFees calls each named
// server received.
func feeRequests(cl *fixtures.Cluster, names ...string) []int {
	out := make([]int, len(names))
	for i, n := range names {
		out[i] = cl.Server(n).Stats().Calls["getRecentPrioritizationFees"]
	}
	return out
}

// feeWatchdog bounds a test's waits on events that come at once; it only
// turns a hang into a failure.
func feeWatchdog(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// awaitWaiting waits until n callers wait on c's fetch in flight, on the
// cache's event for every change of that count (no polling).
func awaitWaiting(t *testing.T, ctx context.Context, c *solroute.Client, n int) {
	t.Helper()
	for {
		got, moved := solroute.PriorityFeeWaiting(c)
		if got >= n {
			return
		}
		select {
		case <-moved:
		case <-ctx.Done():
			t.Fatalf("%d callers wait on the fetch in flight, want %d", got, n)
		}
	}
}

// heldFeeClient is a client over endpoints a and b whose fee answers
// wait a second on the returned fake clock: the fetch stays in flight
// until the test moves it.
func heldFeeClient(t *testing.T) (*clockwork.FakeClock, *solroute.Client, *fixtures.Cluster) {
	t.Helper()
	clock := clockwork.NewFakeClock()
	a, b := feeMember("a", clock, descendingFees), feeMember("b", clock, descendingFees)
	a.Options.Script, b.Options.Script = delayFees(time.Second), delayFees(time.Second)
	c, cl := feeClient(t, clock, a, b)
	return clock, c, cl
}

// delayFees holds every getRecentPrioritizationFees answer for d on the
// server's clock.
func delayFees(d time.Duration) fixtures.Script {
	return fixtures.ByMethod(map[string]fixtures.Fault{"getRecentPrioritizationFees": {Delay: d}})
}

// feeSlotTime is one slot on the fake clock (the fixtures' and the
// pool's): an answer older than that is not reused.
const feeSlotTime = 400 * time.Millisecond
