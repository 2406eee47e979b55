package bench

import (
	"fmt"

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
	// apply gives endpoint "a" the scenario's fault and returns the
	// requests each endpoint had received until then, "a" first: what the
	// measured phase's counts start from.
	apply(scenario string, seed uint64) ([]int, error)
	// finish stops the cluster and returns what its servers counted.
	finish() (serverCounts, error)
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
}

// localCluster runs the servers in this process.
type localCluster struct {
	c *fixtures.Cluster
}

func startLocalCluster() *localCluster {
	members := make([]fixtures.Member, clusterSize)
	for i := range members {
		members[i] = fixtures.Member{Name: endpointName(i)}
	}
	return &localCluster{c: fixtures.NewCluster(members)}
}

func (l *localCluster) urls() []string {
	u := make([]string, len(l.c.Specs))
	for i, s := range l.c.Specs {
		u[i] = s.URL.Reveal()
	}
	return u
}

func (l *localCluster) apply(name string, seed uint64) ([]int, error) {
	sc, err := scenarioNamed(name)
	if err != nil {
		return nil, err
	}
	before := requestCounts(l.c)
	if sc.script != nil {
		l.c.Server(endpointName(0)).SetScript(sc.script(seed))
	}
	if sc.everywhere != nil {
		for _, s := range l.c.Servers {
			s.SetScript(sc.everywhere)
		}
	}
	return before, nil
}

func (l *localCluster) finish() (serverCounts, error) {
	defer l.c.Close()
	n := countDeliveries(l.c)
	n.Requests = requestCounts(l.c)
	return n, nil
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
	for _, s := range c.Servers {
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
