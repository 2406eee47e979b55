package resolve_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/fixturespec"
	"github.com/solroute/solroute/internal/resolve"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/transport"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// chain is a cluster of fake endpoints sharing a ledger and one fake
// clock with the pool, and a transport over them.
type chain struct {
	t      *testing.T
	clock  *clockwork.FakeClock
	ledger *fixtures.Ledger
	c      *fixtures.Cluster
	tc     *engine.Engine
}

// node is one endpoint of a chain: its name, lag and fault (for every
// sendTransaction), or instead a script for every call, and, when lie is
// set, what a liar in front of it rewrites (see liar).
type node struct {
	name   string
	lag    uint64
	fault  fixtures.Fault
	script fixtures.Script
	lie    lies
	// provider is the endpoint's Spec.Provider.
	provider string
}

func newChain(t *testing.T, nodes ...node) *chain {
	t.Helper()
	clock := clockwork.NewFakeClockAt(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ledger := fixtures.NewLedger()
	var members []fixtures.Member
	for _, n := range nodes {
		l := endpoint.Limits{RequestTimeout: 2 * time.Second}
		m := fixtures.Member{Name: n.name, Read: &l, Send: &l,
			Options: fixtures.Options{Clock: clock, Ledger: ledger, Slots: &fixtures.SlotOptions{Start: 1000, Lag: n.lag}}}
		switch {
		case n.script != nil:
			m.Options.Script = n.script
		case n.fault.Kind != fixtures.None:
			m.Options.Script = fixtures.ByMethod(map[string]fixtures.Fault{"sendTransaction": n.fault})
		}
		members = append(members, m)
	}
	c := fixtures.NewCluster(members)
	specs := fixturespec.Specs(c)
	for i, n := range nodes {
		if n.lie != nil {
			specs[i].URL = endpoint.NewSecret(liar(t, c.Server(n.name).URL(), n.lie))
		}
		specs[i].Provider = n.provider
	}
	return chainOver(t, clock, ledger, c, specs)
}

// chainOver is the chain of cluster c (closed with the test) over specs:
// a pool on clock and an engine without retry jitter.
func chainOver(t *testing.T, clock *clockwork.FakeClock, ledger *fixtures.Ledger, c *fixtures.Cluster, specs []endpoint.Spec) *chain {
	t.Helper()
	p, err := admission.New(specs, pool.DefaultSettings(), admission.Options{Clock: clock, Seed: 1})
	if err != nil {
		c.Close()
		t.Fatal(err)
	}
	s := transport.DefaultSettings()
	s.Retry.Jitter = func(time.Duration) time.Duration { return 0 }
	tc, err := engine.New(p, s, engine.Options{})
	if err != nil {
		c.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = tc.Close()
		c.Close()
	})
	return &chain{t: t, clock: clock, ledger: ledger, c: c, tc: tc}
}

// tx signs a transaction on the blockhash of block height tip - age and
// returns it with its lastValidBlockHeight.
func (ch *chain) tx(seed int, age uint64) (*solana.Transaction, uint64) {
	ch.t.Helper()
	_, height := ch.ledger.Tip()
	tx, err := fixtures.SignedTransaction(uint64(seed), fixturedata.BlockhashAt(height-age))
	if err != nil {
		ch.t.Fatal(err)
	}
	return tx, height - age + fixturedata.MaxProcessingAge
}

// drive runs f (a resolution) on its own goroutine and advances the clock
// one slot after each poll, until f returns or maxPolls polls went by.
// o's OnPoll is set to the driver's (after the caller's own, if set).
func (ch *chain) drive(o *confirm.Options, maxPolls int, f func(confirm.Options) (confirm.Result, error)) (confirm.Result, error) {
	ch.t.Helper()
	return ch.driveBy(fixturedata.DefaultSlotTime, o, maxPolls, f)
}

// driveBy is drive advancing the clock by step after each poll.
func (ch *chain) driveBy(step time.Duration, o *confirm.Options, maxPolls int, f func(confirm.Options) (confirm.Result, error)) (confirm.Result, error) {
	ch.t.Helper()
	polled := make(chan struct{})
	user := o.OnPoll
	o.OnPoll = func(r confirm.Result) {
		if user != nil {
			user(r)
		}
		polled <- struct{}{}
	}
	type out struct {
		r   confirm.Result
		err error
	}
	guard, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard, never asserted on
	defer cancel()
	// stopped ends when f returns: the driver then waits for no timer.
	stopped, stop := context.WithCancel(guard)
	defer stop()
	done := make(chan out, 1)
	go func() {
		r, err := f(*o)
		done <- out{r, err}
		stop()
	}()
	for n := 0; ; n++ {
		select {
		case r := <-done:
			return r.r, r.err
		case <-polled:
		case <-guard.Done():
			ch.t.Fatal("resolution hung")
		}
		if n == maxPolls {
			ch.t.Fatalf("no verdict after %d polls", maxPolls)
		}
		// Between polls the resolver's only timer is its wait.
		if err := ch.clock.BlockUntilContext(stopped, 1); err != nil {
			if guard.Err() != nil {
				ch.t.Fatal(err)
			}
			continue // f returned instead of waiting
		}
		ch.clock.Advance(step)
	}
}

// sends counts the sendTransaction requests every endpoint received.
func (ch *chain) sends() int {
	n := 0
	for _, ep := range ch.c.Endpoints() {
		_, s := ep.Name, ch.c.Server(ep.Name)
		for _, r := range s.Requests() {
			if r.Method == "sendTransaction" {
				n++
			}
		}
	}
	return n
}

var skip = confirm.Options{SkipPreflight: true}

func TestSendAndConfirmLands(t *testing.T) {
	ch := newChain(t, node{name: "a"}, node{name: "b"}, node{name: "c"})
	tx, lvbh := ch.tx(1, 0)
	o := skip
	r, err := ch.drive(&o, 20, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch.tc, tx, lvbh, o)
	})
	if err != nil {
		t.Fatal(err)
	}
	truth := ch.ledger.Tx(tx.Signatures[0].String())
	if r.Status != confirm.Landed || r.Slot != truth.Slot || r.Confirmation != rpc.ConfirmationStatusConfirmed || r.Err != nil {
		t.Fatalf("result %+v, truth %+v", r, truth)
	}
	if truth.Arrivals != 1 || r.Rebroadcasts != 0 || r.SendErr != nil {
		t.Fatalf("arrivals %d, rebroadcasts %d, send error %v", truth.Arrivals, r.Rebroadcasts, r.SendErr)
	}
}

func TestSendAndConfirmReportsAnOnChainFailure(t *testing.T) {
	ch := newChain(t, node{name: "a"}, node{name: "b"})
	tx, lvbh := ch.tx(2, 0)
	ch.ledger.Fail(tx.Signatures[0].String(), fixtures.Failure{Instruction: 0, Custom: 6001, PassPreflight: true})
	o := skip
	o.Commitment = rpc.CommitmentFinalized
	r, err := ch.drive(&o, 60, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch.tc, tx, lvbh, o)
	})
	if err != nil {
		t.Fatal(err)
	}
	ie, _ := r.Err.(map[string]any)
	if r.Status != confirm.Failed || r.Confirmation != rpc.ConfirmationStatusFinalized || ie["InstructionError"] == nil {
		t.Fatalf("result %+v", r)
	}
}

func TestPreflightRefusalIsAnErrorNotAResolution(t *testing.T) {
	ch := newChain(t, node{name: "a"})
	tx, lvbh := ch.tx(3, 0)
	ch.ledger.Fail(tx.Signatures[0].String(), fixtures.Failure{Instruction: 1, Custom: 1}) // fails preflight
	r, err := resolve.SendAndConfirm(context.Background(), ch.tc, tx, lvbh, confirm.Options{PreflightCommitment: rpc.CommitmentProcessed})
	var re *transport.RPCError
	if !errors.As(err, &re) || r.Status != confirm.Unknown || r.Polls != 0 {
		t.Fatalf("result %+v, error %v: want the preflight error and no resolution", r, err)
	}
}

func TestAmbiguousSendIsResolved(t *testing.T) {
	// a acts on the send and resets the connection before answering: the
	// send is ambiguous, and resolution says it landed.
	ch := newChain(t, node{name: "a", fault: fixtures.Fault{Kind: fixtures.ResetAfterRead}})
	tx, lvbh := ch.tx(4, 0)
	o := skip
	r, err := ch.drive(&o, 20, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch.tc, tx, lvbh, o)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(r.SendErr, engine.ErrAmbiguousDispatch) || r.Status != confirm.Landed {
		t.Fatalf("result %+v", r)
	}
	if n := ch.ledger.Tx(tx.Signatures[0].String()).Arrivals; n != 1 {
		t.Fatalf("%d arrivals: an ambiguous send was resent", n)
	}
}

func TestExpiredOnlyFromAFinalizedHeight(t *testing.T) {
	ch := newChain(t, node{name: "a"}, node{name: "b"}, node{name: "c"})
	tx, lvbh := ch.tx(5, 140) // 10 blocks of validity left
	sig := tx.Signatures[0].String()
	ch.ledger.Drop(sig, math.MaxInt) // every send of it is lost
	o := skip
	var firstPastValid *confirm.Result
	o.OnPoll = func(r confirm.Result) {
		if _, h := ch.ledger.Tip(); h > lvbh && firstPastValid == nil {
			firstPastValid = &r
		}
	}
	r, err := ch.drive(&o, 200, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch.tc, tx, lvbh, o)
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != confirm.Expired || r.BlockHeight <= lvbh || !ch.ledger.Tx(sig).Expired {
		t.Fatalf("result %+v, truth %+v", r, ch.ledger.Tx(sig))
	}
	// It waited for a finalized height past lastValidBlockHeight, not the
	// tip's: the tip passed it ~32 slots before.
	if firstPastValid == nil || r.Polls-firstPastValid.Polls < 30 {
		t.Fatalf("concluded %d polls after the tip passed lastValidBlockHeight", r.Polls-firstPastValid.Polls)
	}
}

func TestTheOnlyNodeThatSawTheSendIsBehind(t *testing.T) {
	// The send reaches only "behind" (12 slots back, within the pool's
	// allowed lag); the status shows on the others first.
	ch := newChain(t, node{name: "a"}, node{name: "b"}, node{name: "behind", lag: 12})
	tx, lvbh := ch.tx(6, 0)
	if _, err := sendVia(ch, "behind", tx); err != nil {
		t.Fatal(err)
	}
	o := confirm.Options{}
	r, err := ch.drive(&o, 30, func(o confirm.Options) (confirm.Result, error) {
		return resolve.Resolve(context.Background(), ch.tc, tx.Signatures[0], lvbh, o)
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != confirm.Landed || r.Slot != ch.ledger.Tx(tx.Signatures[0].String()).Slot {
		t.Fatalf("result %+v", r)
	}
	if ch.sends() != 1 {
		t.Fatalf("Resolve sent something: %d sends", ch.sends())
	}
}

func TestStatusOnlyOnASecondEndpointIsNotExpiry(t *testing.T) {
	// The transaction lands in its last valid blocks and "a" never shows
	// it (until its root passes it): the blockhash expires while a, asked
	// first, says null. Expired must not be concluded from a alone.
	ch := newChain(t, node{name: "a"}, node{name: "b"})
	tx, lvbh := ch.tx(7, 147)
	sig := tx.Signatures[0].String()
	ch.ledger.Hide(sig, "a")
	if _, err := sendVia(ch, "b", tx); err != nil {
		t.Fatal(err)
	}
	if !ch.ledger.Tx(sig).Landed {
		t.Fatal("setup: the send did not land")
	}
	o := confirm.Options{Commitment: rpc.CommitmentFinalized}
	r, err := ch.drive(&o, 80, func(o confirm.Options) (confirm.Result, error) {
		return resolve.Resolve(context.Background(), ch.tc, tx.Signatures[0], lvbh, o)
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != confirm.Landed {
		t.Fatalf("result %+v, truth %+v", r, ch.ledger.Tx(sig))
	}
}

func TestRebroadcastLandsOnceAndIsCounted(t *testing.T) {
	ch := newChain(t, node{name: "a"}, node{name: "b"})
	tx, lvbh := ch.tx(8, 0)
	sig := tx.Signatures[0].String()
	ch.ledger.Drop(sig, 2) // the send and the first rebroadcast are lost
	o := skip
	o.Rebroadcast = 2 * fixturedata.DefaultSlotTime
	r, err := ch.drive(&o, 40, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch.tc, tx, lvbh, o)
	})
	if err != nil {
		t.Fatal(err)
	}
	truth := ch.ledger.Tx(sig)
	if r.Status != confirm.Landed || r.Rebroadcasts < 2 || truth.Arrivals != 1+r.Rebroadcasts || !truth.Landed {
		t.Fatalf("result %+v, truth %+v", r, truth)
	}
	// Without Rebroadcast the same loss is never recovered: it expires.
	ch2 := newChain(t, node{name: "a"}, node{name: "b"})
	tx2, lvbh2 := ch2.tx(9, 140)
	ch2.ledger.Drop(tx2.Signatures[0].String(), 1)
	o2 := skip
	r2, err := ch2.drive(&o2, 200, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch2.tc, tx2, lvbh2, o)
	})
	if err != nil || r2.Status != confirm.Expired || r2.Rebroadcasts != 0 || ch2.sends() != 1 {
		t.Fatalf("without rebroadcast: %+v, %v, %d sends", r2, err, ch2.sends())
	}
}

func TestUnknownWhenTheContextEnds(t *testing.T) {
	ch := newChain(t, node{name: "a"})
	tx, lvbh := ch.tx(10, 0)
	ch.ledger.Drop(tx.Signatures[0].String(), math.MaxInt)
	ctx, cancel := context.WithCancel(context.Background())
	o := skip
	polls := 0
	o.OnPoll = func(confirm.Result) {
		if polls++; polls == 3 {
			cancel()
		}
	}
	r, err := ch.drive(&o, 10, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(ctx, ch.tc, tx, lvbh, o)
	})
	if err != nil || r.Status != confirm.Unknown || !errors.Is(r.LastErr, context.Canceled) || r.Polls != 3 {
		t.Fatalf("result %+v, error %v", r, err)
	}
}

func TestBadInputIsRefusedBeforeAnyRequest(t *testing.T) {
	ch := newChain(t, node{name: "a"})
	tx, lvbh := ch.tx(11, 0)
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"nil tx": func() error { _, err := resolve.SendAndConfirm(ctx, ch.tc, nil, lvbh, confirm.Options{}); return err },
		"unsigned tx": func() error {
			_, err := resolve.SendAndConfirm(ctx, ch.tc, &solana.Transaction{}, lvbh, confirm.Options{})
			return err
		},
		"zero lvbh": func() error { _, err := resolve.SendAndConfirm(ctx, ch.tc, tx, 0, confirm.Options{}); return err },
		"bad commit": func() error {
			_, err := resolve.Resolve(ctx, ch.tc, tx.Signatures[0], lvbh, confirm.Options{Commitment: "max"})
			return err
		},
		"zero sig": func() error {
			_, err := resolve.Resolve(ctx, ch.tc, solana.Signature{}, lvbh, confirm.Options{})
			return err
		},
		"nil client": func() error {
			_, err := resolve.Resolve(ctx, nil, tx.Signatures[0], lvbh, confirm.Options{})
			return err
		},
		"negative quorum": func() error {
			_, err := resolve.Resolve(ctx, ch.tc, tx.Signatures[0], lvbh, confirm.Options{Quorum: -1})
			return err
		},
		"quorum above the readers": func() error {
			_, err := resolve.Resolve(ctx, ch.tc, tx.Signatures[0], lvbh, confirm.Options{Quorum: 2})
			return err
		},
		"negative poll": func() error {
			_, err := resolve.Resolve(ctx, ch.tc, tx.Signatures[0], lvbh, confirm.Options{PollInterval: -1})
			return err
		},
	} {
		if err := call(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if n := len(ch.c.Server("a").Requests()); n != 0 {
		t.Fatalf("%d requests sent for bad input", n)
	}
}

// sendVia sends tx to one endpoint only, skipping preflight.
func sendVia(ch *chain, name string, tx *solana.Transaction) (string, error) {
	enc, err := fixtures.EncodeTransaction(tx)
	if err != nil {
		return "", err
	}
	var others []string
	for _, ep := range ch.c.Endpoints() {
		n := ep.Name
		if n != name {
			others = append(others, n)
		}
	}
	var sig string
	err = ch.tc.CallForInto(engine.WithAvoid(context.Background(), others...), &sig, "sendTransaction",
		[]any{enc, map[string]any{"encoding": "base64", "skipPreflight": true}})
	return sig, err
}
