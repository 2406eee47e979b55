package pubsub_test

import (
	"strings"
	"testing"

	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/pubsub"
)

// endpointSnap is the snapshot of the endpoint named name.
func endpointSnap(e *env, name string) pubsub.EndpointSnapshot {
	for _, ep := range e.eng.Snapshot().Endpoints {
		if ep.Name == name {
			return ep
		}
	}
	e.t.Fatalf("no endpoint %q in the snapshot", name)
	return pubsub.EndpointSnapshot{}
}

// TestLimitRefusalLeavesEndpointUsable: plan 016 says a refusal that
// names a limit lowers that connection's capacity, not the endpoint's.
// One such refusal, on a connection holding only its heartbeat, must not
// keep later subscriptions off the endpoint once it is healthy and was
// dialed again: redundancy 2 puts them on both endpoints.
func TestLimitRefusalLeavesEndpointUsable(t *testing.T) {
	e := newEnv(t, twoMembers(), redundancy(2))
	// b refuses account subscribes, with agave's node-wide limit
	// message, then is healthy again.
	e.ps["b"].SetFaults(fixtures.PubSubFaults{Refuse: &fixtures.PubSubRefusal{Methods: []string{"accountSubscribe"}}})
	first, err := e.eng.AccountSubscribe(ctxT(t), key(60), pubsubAccountConfirmed())
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	e.steps(2)
	e.ps["b"].SetFaults(fixtures.PubSubFaults{})
	// b restarts: every connection cut, new ones dialed.
	e.ps["b"].Drop()
	e.steps(10)
	second, err := e.eng.AccountSubscribe(ctxT(t), key(61), pubsubAccountConfirmed())
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	e.steps(4)
	if b := endpointSnap(e, "b"); b.Subscriptions != 2 {
		t.Errorf("b refused, recovered and was redialed (%d conns, %d cap refusals), yet holds %d subscriptions, want 2",
			b.Conns, b.CapRefusals, b.Subscriptions)
	}
}

// TestLimitRefusalRetriedAfterBackoff: a limit refusal on a connection
// holding nothing but its heartbeat is no cap of that connection's: the
// stream stays off the endpoint for a backoff only, and takes its second
// leg there once the endpoint accepts again, with no connection cut to
// prompt it and no connection dialed for it.
func TestLimitRefusalRetriedAfterBackoff(t *testing.T) {
	e := newEnv(t, twoMembers(), redundancy(2))
	e.ps["b"].SetFaults(fixtures.PubSubFaults{Refuse: &fixtures.PubSubRefusal{Methods: []string{"accountSubscribe"}}})
	sub, err := e.eng.AccountSubscribe(ctxT(t), key(62), pubsubAccountConfirmed())
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	e.steps(2)
	if b := endpointSnap(e, "b"); b.CapRefusals == 0 || b.Subscriptions != 0 {
		t.Fatalf("b while refusing: %d cap refusals, %d subscriptions; want a refusal, none held", b.CapRefusals, b.Subscriptions)
	}
	e.ps["b"].SetFaults(fixtures.PubSubFaults{})
	e.steps(10)
	if b := endpointSnap(e, "b"); b.Subscriptions != 1 || b.Conns != 1 {
		t.Errorf("b accepts again: %d subscriptions on %d conns (%d cap refusals), want 1 on 1",
			b.Subscriptions, b.Conns, b.CapRefusals)
	}
}

// TestLimitRefusalForgottenOnRedial: with a single subscribe endpoint,
// one limit refusal (while the connection holds only its heartbeat)
// fails that subscribe with the refusal, and no later one: the endpoint
// is healthy again, was cut and dialed anew, and holds nothing.
func TestLimitRefusalForgottenOnRedial(t *testing.T) {
	e := newEnv(t, []member{{name: "a"}}, redundancy(1))
	e.ps["a"].SetFaults(fixtures.PubSubFaults{Refuse: &fixtures.PubSubRefusal{Methods: []string{"accountSubscribe"}}})
	if sub, err := e.eng.AccountSubscribe(ctxT(t), key(60), pubsubAccountConfirmed()); err == nil {
		sub.Close()
		t.Fatal("subscribed while the only endpoint refuses")
	} else if !strings.Contains(err.Error(), "limit") {
		t.Errorf("refused for a limit: %v, want the refusal named", err)
	}
	e.ps["a"].SetFaults(fixtures.PubSubFaults{})
	e.ps["a"].Drop()
	e.steps(10)
	sub, err := e.eng.AccountSubscribe(ctxT(t), key(61), pubsubAccountConfirmed())
	if err != nil {
		t.Fatalf("the endpoint is healthy and holds nothing, yet: %v", err)
	}
	sub.Close()
}

// TestCapacityLearntPerConnection: the server caps each connection at 3
// (the heartbeat and 2); the engine is told nothing and learns it per
// connection: each connection that fills is refused once, and the next
// subscription goes to a connection dialed for it, which starts at the
// endpoint's capacity again.
func TestCapacityLearntPerConnection(t *testing.T) {
	e := newEnv(t, []member{{name: "a", ps: fixtures.PubSubOptions{MaxSubscriptionsPerConn: 3}}}, redundancy(1))
	for i := range 5 {
		sub, err := e.eng.AccountSubscribe(ctxT(t), key(70+i), pubsubAccountConfirmed())
		if err != nil {
			t.Fatalf("subscription %d: %v", i, err)
		}
		defer sub.Close()
		e.steps(1)
	}
	a := endpointSnap(e, "a")
	if a.Subscriptions != 5 || a.Conns != 3 || a.CapRefusals != 2 {
		t.Errorf("5 subscriptions, 3 a connection: %d held on %d conns after %d cap refusals; want 5 on 3 after 2",
			a.Subscriptions, a.Conns, a.CapRefusals)
	}
}

// TestNoRoomErrorSaysSo: when the only endpoint is up but has no room (one
// connection allowed, its one subscription taken), the subscribe fails
// saying so, not with the endpoint's last fault (here a reset, long
// recovered from).
func TestNoRoomErrorSaysSo(t *testing.T) {
	e := newEnv(t, []member{{name: "a"}}, func(eps []pubsub.Endpoint, s *pubsub.Settings, _ *pubsub.Options) {
		s.Redundancy = 1
		eps[0].Limits = pubsub.Limits{SubscriptionsPerConn: 2, ConnsPerEndpoint: 1}
	})
	e.ps["a"].Drop()
	e.steps(10)
	first, err := e.eng.AccountSubscribe(ctxT(t), key(80), pubsubAccountConfirmed())
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	_, err = e.eng.AccountSubscribe(ctxT(t), key(81), pubsubAccountConfirmed())
	if err == nil || !strings.Contains(err.Error(), "no room") || strings.Contains(err.Error(), "reset") {
		t.Errorf("no room on the only endpoint: %v, want it said", err)
	}
}
