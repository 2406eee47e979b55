//go:build !race

package pubsub_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/ws"

	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/pubsub"
)

// Scale of TestTenThousandAccounts (issue 23's target).
const (
	scaleAccounts = 10_000
	scaleCap      = 100 // subscriptions per connection, the heartbeat included
	// scaleBytesPerSub bounds the heap each subscription costs, both
	// legs, engine and fake servers together (measured: see plans/016,
	// "Measured").
	scaleBytesPerSub = 8 << 10
	// scaleGoroutinesPerConn bounds the engine's goroutines per
	// connection (its reader and its writer).
	scaleGoroutinesPerConn = 2
)

// TestTenThousandAccounts: 10 000 distinct account subscriptions over 3
// endpoints that cap each connection at 100 subscriptions: every one is
// live on two endpoints (redundancy 2), no connection holds more than
// 100 (the servers saw none over and refused none), and the heap each
// subscription costs and the engine's goroutines per connection stay
// under their bounds. Without the race detector: under it the 20 000
// subscribes take a minute.
func TestTenThousandAccounts(t *testing.T) {
	ps := fixtures.PubSubOptions{MaxSubscriptionsPerConn: scaleCap}
	e := newEnv(t, []member{{name: "a", ps: ps}, {name: "b", ps: ps}, {name: "c", ps: ps}},
		func(eps []pubsub.Endpoint, _ *pubsub.Settings, _ *pubsub.Options) {
			for i := range eps {
				eps[i].Limits = pubsub.Limits{SubscriptionsPerConn: scaleCap, ConnsPerEndpoint: 128}
			}
		})
	baseGoroutines := engineGoroutines()
	baseConns := totalConns(e)
	before := heapAfterGC()
	subs := make([]*pubsub.Subscription[*ws.AccountResult], 0, scaleAccounts)
	ctx := ctxT(t)
	for i := range scaleAccounts {
		s, err := e.eng.AccountSubscribe(ctx, key(100_000+i), pubsub.AccountOptions{Commitment: rpc.CommitmentConfirmed})
		if err != nil {
			t.Fatalf("subscription %d: %v", i, err)
		}
		subs = append(subs, s)
	}
	e.settle()
	after := heapAfterGC()
	snap := e.eng.Snapshot()
	legs, conns := 0, 0
	for _, ep := range snap.Endpoints {
		legs += ep.Subscriptions
		conns += ep.Conns
	}
	if snap.Streams != scaleAccounts || legs != 2*scaleAccounts {
		t.Errorf("%d streams on %d legs, want %d on %d", snap.Streams, legs, scaleAccounts, 2*scaleAccounts)
	}
	for _, n := range e.names {
		st := e.ps[n].Stats()
		if st.MaxSubscriptionsPerConn > scaleCap || st.CapRefusals != 0 {
			t.Errorf("%s: a connection held %d subscriptions (cap %d), %d refused for the cap",
				n, st.MaxSubscriptionsPerConn, scaleCap, st.CapRefusals)
		}
	}
	perSub := float64(int64(after)-int64(before)) / scaleAccounts
	goroutines := engineGoroutines() - baseGoroutines
	perConn := float64(goroutines) / float64(max(1, conns-baseConns))
	t.Logf("%d subscriptions, %d legs on %d connections (%d before): %.0f B of heap each (bound %d), "+
		"%.2f engine goroutines per connection (%d more)", scaleAccounts, legs, conns, baseConns, perSub,
		scaleBytesPerSub, perConn, goroutines)
	if perSub > scaleBytesPerSub {
		t.Errorf("%.0f B of heap per subscription, bound %d", perSub, scaleBytesPerSub)
	}
	if perConn > scaleGoroutinesPerConn {
		t.Errorf("%.2f engine goroutines per connection, bound %d", perConn, scaleGoroutinesPerConn)
	}
	for _, s := range subs {
		if err := s.Err(); err != nil {
			t.Fatalf("a subscription ended: %v", err)
		}
		s.Close()
	}
}

// heapAfterGC is the live heap after a collection.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// engineGoroutines counts the goroutines the engine started (the fake
// servers' are in the same process and not counted).
func engineGoroutines() int {
	buf := make([]byte, 64<<20)
	dump := string(buf[:runtime.Stack(buf, true)])
	n := 0
	for _, g := range strings.Split(dump, "\n\n") {
		if strings.Contains(g, "created by github.com/solroute/solroute/internal/pubsub.") {
			n++
		}
	}
	return n
}

// totalConns counts the engine's open connections.
func totalConns(e *env) int {
	n := 0
	for _, ep := range e.eng.Snapshot().Endpoints {
		n += ep.Conns
	}
	return n
}
