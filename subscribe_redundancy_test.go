package solroute_test

import (
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/endpoint"
)

// newRedundancyEnv is newSubEnv over three endpoints with a client whose
// SubscribeRedundancy is r.
func newRedundancyEnv(t *testing.T, r int) *subEnv {
	t.Helper()
	e := newSubEnv(t, []string{"a", "b", "c"}, nil)
	c, err := solroute.New(solroute.Options{Endpoints: e.cluster.Endpoints(), SubscribeRedundancy: r, Hooks: solroute.Hooks{Clock: e.clock}})
	if err != nil {
		t.Fatal(err)
	}
	_ = e.client.Close()
	e.client = c
	t.Cleanup(func() { _ = c.Close() })
	return e
}

// legs counts the subscriptions the endpoints hold for streams (the
// heartbeats excluded), and the endpoints holding one.
func legs(t *testing.T, c *solroute.Client) (n int, holders []string) {
	t.Helper()
	snap, ok := solroute.SubscribeSnapshot(c)
	if !ok {
		t.Fatal("the engine has not started")
	}
	for _, ep := range snap.Endpoints {
		n += ep.Subscriptions
		if ep.Subscriptions > 0 {
			holders = append(holders, ep.Name)
		}
	}
	return n, holders
}

// TestSubscribeRedundancyHoldsThatManyLegs: Options.SubscribeRedundancy 1
// holds an account subscription on one endpoint, 3 on three distinct
// ones, the default on two.
func TestSubscribeRedundancyHoldsThatManyLegs(t *testing.T) {
	for _, tc := range []struct{ redundancy, want int }{{1, 1}, {3, 3}, {0, 2}} {
		e := newRedundancyEnv(t, tc.redundancy)
		sub, err := e.client.AccountSubscribe(subCtx(t), testKey(1), &solroute.AccountSubscribeOptions{Commitment: rpc.CommitmentConfirmed})
		if err != nil {
			t.Fatal(err)
		}
		e.steps(3)
		if n, h := legs(t, e.client); n != tc.want || len(h) != tc.want {
			t.Errorf("redundancy %d: %d legs on %v, want %d on distinct endpoints", tc.redundancy, n, h, tc.want)
		}
		sub.Close()
	}
}

// TestSubscribeRedundancyRefusedWhenUnmet: a redundancy the subscribe
// endpoints cannot meet, or out of range, is an error before any
// connection, from Options and from a document alike; the default with one
// subscribe endpoint is not.
func TestSubscribeRedundancyRefusedWhenUnmet(t *testing.T) {
	e := newSubEnv(t, []string{"a", "b"}, nil)
	eps := e.cluster.Endpoints()
	for _, r := range []int{3, -1, 17} {
		_, err := solroute.New(solroute.Options{Endpoints: eps, SubscribeRedundancy: r})
		if err == nil || !strings.Contains(err.Error(), "Options.SubscribeRedundancy") {
			t.Errorf("redundancy %d: err %v, want one naming Options.SubscribeRedundancy", r, err)
		}
	}
	_, err := solroute.FromDocument(&config.Document{Endpoints: specsOf(eps), Subscribe: config.Subscribe{Redundancy: 3}}, solroute.Hooks{})
	if err == nil || !strings.Contains(err.Error(), "[subscribe] redundancy is 3 but 2 endpoint(s) serve subscribe") {
		t.Errorf("document: err %v", err)
	}
	one, err := solroute.New(solroute.Options{Endpoints: eps[:1]})
	if err != nil {
		t.Fatalf("the default with one subscribe endpoint: %v", err)
	}
	_ = one.Close()
}

// specsOf is what a document would hold for eps: each endpoint's name,
// URLs, read role and subscribe role.
func specsOf(eps []solroute.Endpoint) []endpoint.Spec {
	out := make([]endpoint.Spec, len(eps))
	for i, ep := range eps {
		out[i] = endpoint.Spec{Name: ep.Name, URL: endpoint.NewSecret(ep.URL), WSURL: endpoint.NewSecret(ep.WSURL),
			Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {}}, Subscribe: &endpoint.SubscribeLimits{}}
	}
	return out
}
