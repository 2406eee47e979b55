package solroute

import (
	"context"
	"sync"
	"time"

	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/transport"
)

// callLatency is an observer of one bulk read's attempts: the least time
// each endpoint took to answer one since the cap was last asked for. The
// adaptive cap is asked again with it in place of the pool's estimate:
// the pool's is a peak EWMA (pessimistic by design, for the balancing)
// and counts the client's own queueing after admission, which grows with
// the cap; fed back, it drove the cap to its ceiling and the servers to
// 429 (plans/018, "Bulk reads"). The least answer time is what an
// endpoint needs per request with nothing queued (Little's law's
// latency), and more chunks in flight do not raise it.
type callLatency struct {
	mu    sync.Mutex
	least map[string]time.Duration
}

// apply replaces each endpoint's latency in cs with the least answer time
// seen since the last apply, when there is one, and starts a new
// interval.
func (l *callLatency) apply(cs []admission.Capacity) []admission.Capacity {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range cs {
		if d, ok := l.least[cs[i].Endpoint]; ok {
			cs[i].Latency = d
		}
	}
	clear(l.least)
	return cs
}

func (l *callLatency) AttemptEnded(_ context.Context, _ transport.CallInfo, a transport.Attempt) {
	if a.Cause != 0 || a.Duration <= 0 {
		return
	}
	l.mu.Lock()
	if d, ok := l.least[a.Endpoint]; !ok || a.Duration < d {
		if l.least == nil {
			l.least = make(map[string]time.Duration)
		}
		l.least[a.Endpoint] = a.Duration
	}
	l.mu.Unlock()
}

func (l *callLatency) CallStarted(ctx context.Context, _ transport.CallInfo) context.Context {
	return ctx
}

func (l *callLatency) AttemptStarted(ctx context.Context, _ transport.CallInfo, _ transport.Attempt) context.Context {
	return ctx
}

func (l *callLatency) CallEnded(context.Context, transport.CallInfo, transport.CallResult) {}
