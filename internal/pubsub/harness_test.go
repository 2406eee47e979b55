package pubsub_test

import (
	"context"
	"fmt"
	"reflect"
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
// at the clock's reading: each server settled (its client read all it
// sent), the engine quiet, and what the engine waits for is exactly what
// the servers hold, with no change during the servers' settling. Until
// then it waits for the engine or a server to signal a change (never for
// a time): see waitChange.
func (e *env) settle() {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	for {
		before := e.eng.Activity()
		acts := map[string]fixtures.PubSubActivity{}
		for name, p := range e.ps {
			a, err := p.Settle(ctx)
			if err != nil {
				e.t.Fatalf("settle: %v; engine %+v", err, e.eng.Activity())
			}
			acts[name] = a
		}
		after := e.eng.Activity()
		select {
		case <-before.Changed:
			continue // the engine moved while the servers settled
		default:
		}
		if after.Quiet && e.matches(after, acts) {
			return
		}
		if err := waitChange(ctx, after.Changed, acts); err != nil {
			e.t.Fatalf("settle: %v: engine %+v, servers %+v", err, after, acts)
		}
	}
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

func (e *env) matches(a pubsub.Activity, acts map[string]fixtures.PubSubActivity) bool {
	for name, s := range acts {
		if a.Dialing[name] != s.HeldHandshakes || a.Awaiting[name] != s.HeldRequests || a.Conns[name] != s.Conns {
			return false
		}
	}
	return true
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
