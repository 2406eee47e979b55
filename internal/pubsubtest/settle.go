// Package pubsubtest holds what the tests of the subscription engine
// (internal/pubsub) and of the root's subscriptions share: waiting, never
// for a time, until an engine and its fake PubSub endpoints have done all
// they can at the fake clock's reading. Tests only.
package pubsubtest

import (
	"context"
	"fmt"
	"reflect"

	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/pubsub"
)

// Settle waits until the engine (read by activity; false: not started,
// nothing to wait for) and every server have done all they can at the
// clock's reading: each server settled (its client read all it sent), the
// engine quiet, and what the engine waits for exactly what the servers
// hold, with no change during the servers' settling. Until then it waits
// for the engine or a server to signal a change. It fails, naming both
// sides' state, when a server cannot settle or ctx ends first.
func Settle(ctx context.Context, activity func() (pubsub.Activity, bool), servers map[string]*fixtures.PubSub) error {
	for {
		before, started := activity()
		if !started {
			return nil
		}
		acts := make(map[string]fixtures.PubSubActivity, len(servers))
		for name, p := range servers {
			a, err := p.Settle(ctx)
			if err != nil {
				after, _ := activity()
				return fmt.Errorf("%w; engine %+v", err, after)
			}
			acts[name] = a
		}
		after, _ := activity()
		select {
		case <-before.Changed:
			continue // the engine moved while the servers settled
		default:
		}
		if after.Quiet && matches(after, acts) {
			return nil
		}
		if err := waitChange(ctx, after.Changed, acts); err != nil {
			return fmt.Errorf("%w: engine %+v, servers %+v", err, after, acts)
		}
	}
}

// matches reports whether the engine waits for exactly what the servers
// hold: handshakes, answers and connections, endpoint by endpoint.
func matches(a pubsub.Activity, acts map[string]fixtures.PubSubActivity) bool {
	for name, s := range acts {
		if a.Dialing[name] != s.HeldHandshakes || a.Awaiting[name] != s.HeldRequests || a.Conns[name] != s.Conns {
			return false
		}
	}
	return true
}

// waitChange blocks until the engine (engine) or a server (each
// activity's Changed) signals a change after its reading, or ctx ends.
// Each channel was taken with the reading it follows, so no change can
// come between the reading and the wait unseen.
func waitChange(ctx context.Context, engine <-chan struct{}, acts map[string]fixtures.PubSubActivity) error {
	cases := []reflect.SelectCase{
		{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())},
		{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(engine)},
	}
	for _, a := range acts {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(a.Changed)})
	}
	if i, _, _ := reflect.Select(cases); i == 0 {
		return context.Cause(ctx)
	}
	return nil
}
