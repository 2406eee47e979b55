package solroute_test

import (
	"context"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/jonboulle/clockwork"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/pubsub"
	"github.com/solroute/solroute/internal/pubsubtest"
)

// subWatchdog bounds a wait for what should come at once; it asserts no
// duration.
const subWatchdog = 20 * time.Second

// slotTime is one slot of the fake cluster.
const slotTime = fixturedata.DefaultSlotTime

// subEnv is a fake cluster whose members serve HTTP and PubSub on one
// fake clock and ledger, and a Client over it built by solroute.New.
type subEnv struct {
	t       *testing.T
	clock   *clockwork.FakeClock
	ledger  *fixtures.Ledger
	cluster *fixtures.Cluster
	names   []string
	client  *solroute.Client
}

// newSubEnv starts one member per name (tier 0 each) with a PubSub, and a
// client on their Endpoints; edit adjusts them first.
func newSubEnv(t *testing.T, names []string, edit func([]solroute.Endpoint)) *subEnv {
	t.Helper()
	return newSubEnvWith(t, names, func(o *solroute.Options) {
		if edit != nil {
			edit(o.Endpoints)
		}
	})
}

// newSubEnvWith is newSubEnv with the client's options edited before it
// is built (a logger, observers, WebSocket URLs).
func newSubEnvWith(t *testing.T, names []string, edit func(*solroute.Options)) *subEnv {
	t.Helper()
	e := &subEnv{t: t, clock: clockwork.NewFakeClockAt(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
		ledger: fixtures.NewLedger(), names: names}
	var ms []fixtures.Member
	for _, n := range names {
		ms = append(ms, fixtures.Member{Name: n, PubSub: &fixtures.PubSubOptions{}, Options: fixtures.Options{
			Clock: e.clock, Ledger: e.ledger, Slots: &fixtures.SlotOptions{Start: 5000}}})
	}
	e.cluster = fixtures.NewCluster(ms)
	t.Cleanup(e.cluster.Close)
	o := solroute.Options{Endpoints: e.cluster.Endpoints(), Hooks: solroute.Hooks{Clock: e.clock}}
	if edit != nil {
		edit(&o)
	}
	c, err := solroute.New(o)
	if err != nil {
		t.Fatal(err)
	}
	e.client = c
	t.Cleanup(func() { _ = c.Close() }) // before the servers close
	return e
}

// settle waits until the client's engine and every PubSub have done all
// they can at the clock's reading (pubsubtest.Settle): never for a time.
func (e *subEnv) settle() {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), subWatchdog)
	defer cancel()
	servers := make(map[string]*fixtures.PubSub, len(e.names))
	for _, n := range e.names {
		servers[n] = e.cluster.PubSub(n)
	}
	activity := func() (pubsub.Activity, bool) { return solroute.SubscribeActivity(e.client) }
	if err := pubsubtest.Settle(ctx, activity, servers); err != nil {
		e.t.Fatalf("settle: %v", err)
	}
}

// steps advances n slots, one at a time, settling before each (what the
// test did since has run to its wait on the clock) and after it.
func (e *subEnv) steps(n int) {
	e.t.Helper()
	for range n {
		e.settle()
		e.clock.Advance(slotTime)
		e.settle()
	}
}

// setLamports lands a change writing lamports to acct.
func (e *subEnv) setLamports(acct solana.PublicKey, lamports uint64) {
	e.t.Helper()
	if _, _, err := e.ledger.Apply(fixtures.Change{Accounts: map[string]*fixtures.AccountState{
		acct.String(): {Lamports: lamports, Data: []byte{byte(lamports)}}}}); err != nil {
		e.t.Fatal(err)
	}
}

// drainSub returns what a subscription delivered so far, without waiting.
func drainSub[T any](s *solroute.Subscription[T]) []solroute.Notification[T] {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out []solroute.Notification[T]
	for {
		n, err := s.Next(ctx)
		if err != nil {
			return out
		}
		out = append(out, n)
	}
}

// subCtx is a watchdog context.
func subCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), subWatchdog)
	t.Cleanup(cancel)
	return ctx
}

// testKey is a deterministic public key.
func testKey(i int) solana.PublicKey {
	var k solana.PublicKey
	k[0], k[1], k[31] = byte(i), byte(i>>8), 9
	return k
}
