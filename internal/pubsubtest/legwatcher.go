package pubsubtest

import (
	"context"

	"github.com/solroute/solroute/internal/pubsub"
	"github.com/solroute/solroute/transport"
)

// LegWatcher is an Observer that also watches subscription events
// (pubsub.Watcher): it sends the endpoint of each leg that goes live on Up,
// or on Replaced when it took the place of a lost one, without blocking
// (a full channel drops the signal). Added after another Watcher, it sees
// an event once that one has.
type LegWatcher struct{ Up, Replaced chan string }

// NewLegWatcher returns a LegWatcher whose channels hold n signals each.
func NewLegWatcher(n int) LegWatcher {
	return LegWatcher{Up: make(chan string, n), Replaced: make(chan string, n)}
}

// CallStarted returns ctx.
func (LegWatcher) CallStarted(ctx context.Context, _ transport.CallInfo) context.Context { return ctx }

// AttemptStarted returns ctx.
func (LegWatcher) AttemptStarted(ctx context.Context, _ transport.CallInfo, _ transport.Attempt) context.Context {
	return ctx
}

// AttemptEnded does nothing.
func (LegWatcher) AttemptEnded(context.Context, transport.CallInfo, transport.Attempt) {}

// CallEnded does nothing.
func (LegWatcher) CallEnded(context.Context, transport.CallInfo, transport.CallResult) {}

// WatchSubscription signals a leg gone live.
func (w LegWatcher) WatchSubscription(ev pubsub.Event) {
	if ev.Kind != pubsub.EventLegUp {
		return
	}
	ch := w.Up
	if ev.Replaced {
		ch = w.Replaced
	}
	select {
	case ch <- ev.Endpoint:
	default:
	}
}
