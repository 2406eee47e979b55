package bench

import (
	"fmt"
	"time"

	"github.com/solroute/solroute/fixtures"
)

// clusterSize is the number of endpoints of a cell's cluster.
const clusterSize = 3

// endpointName names the i-th endpoint: "a", "b", "c". The scenario's
// fault goes to "a", the endpoint single-endpoint clients use.
func endpointName(i int) string { return string(rune('a' + i)) }

// cluster is the loopback cluster of one cell, in this process or in a
// child process.
type cluster interface {
	// urls returns the endpoints' URLs, "a" first.
	urls() []string
	// apply gives endpoint "a" the scenario's fault and returns what the
	// measured phase starts from (see applied).
	apply(scenario string, seed uint64) (applied, error)
	// finish stops the cluster and returns what its servers counted.
	finish() (serverCounts, error)
}

// applied is the cluster's state once a scenario's fault is applied, "a"
// first in each list.
type applied struct {
	// Requests counts the requests each endpoint had received until then:
	// what the measured phase's counts start from.
	Requests []int `json:"requests"`
	// Slots is each endpoint's confirmed slot just after the fault (the
	// slot model of every endpoint is on, see startLocalCluster): where a
	// lagging endpoint's answers are told from the others'.
	Slots []uint64 `json:"slots"`
}

// serverCounts is what the servers of one cluster counted.
type serverCounts struct {
	// Delivered counts sendTransaction requests received, over the cluster.
	Delivered int `json:"delivered"`
	// Duplicates counts, over every signature, the deliveries a real node
	// would have acted on beyond the first (see fixtures.Server.Forwarded).
	Duplicates int `json:"duplicates"`
	// Requests counts the HTTP requests each endpoint received, "a" first
	// (fixtures.Stats.Requests: every request read in full, answered or
	// not, plus every connection reset at accept).
	Requests []int `json:"requests"`
	// Answered counts the getBalance calls each endpoint answered with a
	// result after the fault was applied, "a" first: not refused by the
	// slot model (a -32016 below a requested minContextSlot is not an
	// answer) and not touched by a scripted fault. It is what an endpoint
	// served, whether or not the client then used it.
	Answered []int `json:"answered"`
}

// localCluster runs the servers in this process.
type localCluster struct {
	c *fixtures.Cluster
	// from is the request count of each endpoint when the fault was
	// applied (nil before): the requests numbered above it are the
	// measured phase's.
	from []int
}

// startLocalCluster starts three endpoints with the slot model on, at
// its defaults (fixtures.SlotOptions: a tip that advances one slot per
// 400 ms on the real clock, confirmed 2 slots behind processed, no lag).
// They share one origin, so their slots are equal until a scenario sets
// a lag: a read at any commitment carries a real, moving context.slot,
// and a minContextSlot a client sends is checked.
// slotTime is the fake cluster's slot time, set here so the staleness
// rule of slots.go reads the cadence the cluster runs at (agave's target).
const slotTime = 400 * time.Millisecond

func startLocalCluster() *localCluster {
	members := make([]fixtures.Member, clusterSize)
	for i := range members {
		members[i] = fixtures.Member{Name: endpointName(i), Options: fixtures.Options{Slots: &fixtures.SlotOptions{SlotTime: slotTime}}}
	}
	return &localCluster{c: fixtures.NewCluster(members)}
}

func (l *localCluster) urls() []string {
	eps := l.c.Endpoints()
	u := make([]string, len(eps))
	for i, e := range eps {
		u[i] = e.URL
	}
	return u
}

func (l *localCluster) apply(name string, seed uint64) (applied, error) {
	sc, err := scenarioNamed(name)
	if err != nil {
		return applied{}, err
	}
	a := applied{Requests: requestCounts(l.c)}
	l.from = a.Requests
	if sc.script != nil {
		l.c.Server(endpointName(0)).SetScript(sc.script(seed))
	}
	if sc.everywhere != nil {
		for _, ep := range l.c.Endpoints() {
			_, s := ep.Name, l.c.Server(ep.Name)
			s.SetScript(sc.everywhere)
		}
	}
	if sc.lag > 0 {
		l.c.Server(endpointName(0)).SetLag(sc.lag)
	}
	a.Slots = make([]uint64, clusterSize)
	for i := range a.Slots {
		a.Slots[i] = l.c.Server(endpointName(i)).Slot(benchCommitment)
	}
	return a, nil
}

func (l *localCluster) finish() (serverCounts, error) {
	defer l.c.Close()
	n := countDeliveries(l.c)
	n.Requests = requestCounts(l.c)
	n.Answered = answeredReads(l.c, l.from)
	return n, nil
}

// answeredReads counts the getBalance calls each endpoint answered with a
// result, among the requests numbered above from (all of them when from
// is nil); see serverCounts.Answered.
func answeredReads(c *fixtures.Cluster, from []int) []int {
	n := make([]int, clusterSize)
	for i := range n {
		after := 0
		if i < len(from) {
			after = from[i]
		}
		for _, r := range c.Server(endpointName(i)).Requests() {
			if r.N > after && r.Method == "getBalance" && r.Refused == 0 && r.Fault.Kind == fixtures.None {
				n[i]++
			}
		}
	}
	return n
}

// requestCounts returns the requests each endpoint has received so far,
// "a" first.
func requestCounts(c *fixtures.Cluster) []int {
	n := make([]int, clusterSize)
	for i := range n {
		n[i] = c.Server(endpointName(i)).Stats().Requests
	}
	return n
}

// countDeliveries counts sendTransaction deliveries over the cluster and
// the duplicates among them, in one pass over the recorded requests
// (fixtures.Server.Forwarded per signature would scan them all per
// signature).
func countDeliveries(c *fixtures.Cluster) serverCounts {
	var n serverCounts
	forwarded := make(map[string]int)
	for _, ep := range c.Endpoints() {
		_, s := ep.Name, c.Server(ep.Name)
		for _, r := range s.Requests() {
			if r.Method != "sendTransaction" || r.Signature == "" {
				continue
			}
			n.Delivered++
			if r.Forwarded() {
				forwarded[r.Signature]++
			}
		}
	}
	for _, f := range forwarded {
		n.Duplicates += max(f-1, 0)
	}
	return n
}

// errChild reports a child process that broke the protocol.
type errChild struct{ msg string }

func (e *errChild) Error() string { return fmt.Sprintf("bench: cluster child process: %s", e.msg) }
