package pubsub_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/pubsub"
	"github.com/solroute/solroute/internal/pubsubtest"
)

// watchdog bounds a wait for what should come at once; it asserts no
// duration.
const watchdog = 20 * time.Second

// epoch is the fake clock's start.
var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// start is the chain's tip at the epoch.
const start = 5000

// env is a fake cluster (servers with a ledger, each with its PubSub) on
// one fake clock, and an engine over it.
type env struct {
	t       *testing.T
	clock   *clockwork.FakeClock
	ledger  *fixtures.Ledger
	cluster *fixtures.Cluster
	ps      map[string]*fixtures.PubSub
	names   []string
	eng     *pubsub.Engine
	events  *eventLog
	reader  *httpReader
}

// member is one endpoint of an env: its tier and PubSub options.
type member struct {
	name string
	tier int
	ps   fixtures.PubSubOptions
}

// newEnv starts the cluster and, unless build is nil, the engine (build
// adjusts its endpoints and settings).
func newEnv(t *testing.T, members []member, build func([]pubsub.Endpoint, *pubsub.Settings, *pubsub.Options)) *env {
	t.Helper()
	e := &env{t: t, clock: clockwork.NewFakeClockAt(epoch), ledger: fixtures.NewLedger(),
		ps: map[string]*fixtures.PubSub{}, events: &eventLog{}}
	var ms []fixtures.Member
	for _, m := range members {
		ms = append(ms, fixtures.Member{Name: m.name, Tier: m.tier, Options: fixtures.Options{
			Clock: e.clock, Ledger: e.ledger, Slots: &fixtures.SlotOptions{Start: start}}})
		e.names = append(e.names, m.name)
	}
	e.cluster = fixtures.NewCluster(ms)
	t.Cleanup(e.cluster.Close)
	var urls []string
	for _, m := range members {
		p := fixtures.NewPubSub(e.cluster.Server(m.name), m.ps)
		t.Cleanup(p.Close)
		e.ps[m.name] = p
		urls = append(urls, e.cluster.Server(m.name).URL())
	}
	e.reader = newHTTPReader(t, urls)
	if build != nil {
		eps := make([]pubsub.Endpoint, len(members))
		for i, m := range members {
			eps[i] = pubsub.Endpoint{Name: m.name, Tier: m.tier, URL: endpoint.NewSecret(e.ps[m.name].URL() + "/ws")}
		}
		s := pubsub.Settings{}
		o := pubsub.Options{Clock: e.clock, Reader: e.reader, Observe: e.events.add, Seed: 1}
		build(eps, &s, &o)
		eng, err := pubsub.New(eps, s, o)
		if err != nil {
			t.Fatal(err)
		}
		e.eng = eng
		t.Cleanup(eng.Close) // before the servers close (cleanups run last first)
		e.settle()
	}
	return e
}

// settle waits until the engine and every server have done all they can
// at the clock's reading (pubsubtest.Settle): never for a time.
func (e *env) settle() {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	activity := func() (pubsub.Activity, bool) { return e.eng.Activity(), true }
	if err := pubsubtest.Settle(ctx, activity, e.ps); err != nil {
		e.t.Fatalf("settle: %v", err)
	}
}

// step moves the clock by d once the engine and the servers are settled,
// and settles them again. Settling first is what makes a step
// deterministic: whatever the test did since the last settle (a fault
// set, a connection dropped, a subscribe) has run to its wait on the
// clock before the clock moves, so no goroutine reads the clock, or sets
// a timer from a reading, on either side of the Advance.
func (e *env) step(d time.Duration) {
	e.t.Helper()
	e.settle()
	e.clock.Advance(d)
	e.settle()
}

// advance moves the clock by d in steps of step, settling before and
// after each.
func (e *env) advance(d, step time.Duration) {
	e.t.Helper()
	for d > 0 {
		s := min(step, d)
		e.step(s)
		d -= s
	}
}

// eventLog keeps the engine's events.
type eventLog struct {
	mu  sync.Mutex
	evs []pubsub.Event
}

func (l *eventLog) add(ev pubsub.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.evs = append(l.evs, ev)
}

func (l *eventLog) all() []pubsub.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]pubsub.Event(nil), l.evs...)
}

// httpReader reads back over real HTTP through solana-go's client, the
// servers tried in order.
type httpReader struct {
	clients []*rpc.Client
	mu      sync.Mutex
	calls   int
}

func newHTTPReader(t *testing.T, urls []string) *httpReader {
	r := &httpReader{}
	for _, u := range urls {
		cl := rpc.New(u)
		t.Cleanup(func() { _ = cl.Close() })
		r.clients = append(r.clients, cl)
	}
	return r
}

func (r *httpReader) count() {
	r.mu.Lock()
	r.calls++
	r.mu.Unlock()
}

func (r *httpReader) GetMultipleAccounts(ctx context.Context, keys []solana.PublicKey, c rpc.CommitmentType,
	enc solana.EncodingType, minSlot uint64) (*rpc.GetMultipleAccountsResult, error) {
	r.count()
	o := &rpc.GetMultipleAccountsOpts{Commitment: c, Encoding: enc}
	if minSlot > 0 {
		o.MinContextSlot = &minSlot
	}
	var errs []string
	for _, cl := range r.clients {
		out, err := cl.GetMultipleAccountsWithOpts(ctx, keys, o)
		if err == nil {
			return out, nil
		}
		errs = append(errs, err.Error())
	}
	return nil, fmt.Errorf("every server failed: %s", strings.Join(errs, "; "))
}

func (r *httpReader) GetSignatureStatuses(ctx context.Context, sigs []solana.Signature) (*rpc.GetSignatureStatusesResult, error) {
	r.count()
	var errs []string
	for _, cl := range r.clients {
		out, err := cl.GetSignatureStatuses(ctx, false, sigs...)
		if err == nil {
			return out, nil
		}
		errs = append(errs, err.Error())
	}
	return nil, fmt.Errorf("every server failed: %s", strings.Join(errs, "; "))
}

// drain returns what a subscription has delivered so far, without
// waiting.
func drain[T any](t *testing.T, s *pubsub.Subscription[T]) []pubsub.Notification[T] {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out []pubsub.Notification[T]
	for {
		n, err := s.Next(ctx)
		if err != nil {
			return out
		}
		out = append(out, n)
	}
}

// key is a deterministic public key.
func key(i int) solana.PublicKey {
	var k solana.PublicKey
	k[0], k[1], k[2], k[31] = byte(i), byte(i>>8), byte(i>>16), 9
	return k
}

// ctxT is a watchdog context.
func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	t.Cleanup(cancel)
	return ctx
}

// subscribeAsync runs a subscribe in a goroutine (it waits for an answer
// that may need the clock to move) and returns its result channel.
func subscribeAsync[T any](f func() (T, error)) <-chan result[T] {
	ch := make(chan result[T], 1)
	go func() {
		v, err := f()
		ch <- result[T]{v, err}
	}()
	return ch
}

type result[T any] struct {
	v   T
	err error
}
