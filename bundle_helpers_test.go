package solroute_test

import (
	"context"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/transport"
)

// bundleStart is the chain's first slot in the bundle tests.
const bundleStart = 1000

// bundleRig is a fake cluster of one reader, one block engine and one
// sender on one ledger and fake clock.
type bundleRig struct {
	clock  *clockwork.FakeClock
	ledger *fixtures.Ledger
	reader *fixtures.Server
	engine *fixtures.BlockEngine
	sender *fixtures.Sender
}

// newBundleRig starts the rig.
func newBundleRig(t *testing.T) *bundleRig {
	t.Helper()
	r := &bundleRig{clock: clockwork.NewFakeClockAt(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)), ledger: fixtures.NewLedger()}
	opts := func(name string) fixtures.Options {
		return fixtures.Options{Name: name, Clock: r.clock, Ledger: r.ledger, Slots: &fixtures.SlotOptions{Start: bundleStart}}
	}
	r.reader = fixtures.NewServer(opts("reader"))
	r.engine = fixtures.NewBlockEngine(opts("jito"))
	r.sender = fixtures.NewSender(opts("sender"))
	t.Cleanup(func() { r.reader.Close(); r.engine.Close(); r.sender.Close() })
	return r
}

// client is a client over the rig: the reader for reads, the engine
// (with the bundles capability; engineQuery, a secret-looking ?uuid=...,
// added to its URL) and, when sender, the sender for sends, declared
// with skipPreflight.
func (r *bundleRig) client(t *testing.T, engineQuery string, sender bool, skipPreflight bool, obs ...transport.Observer) *solroute.Client {
	t.Helper()
	eps := []solroute.Endpoint{
		{Name: "reader", URL: r.reader.URL(), Read: &endpoint.Limits{}},
		{Name: "jito", URL: r.engine.URL() + engineQuery, Tier: 1, Send: &endpoint.Limits{},
			Capabilities: []string{"bundles"}, BlockEngine: true},
	}
	if sender {
		eps = append(eps, solroute.Endpoint{Name: "sender", URL: r.sender.URL(), Send: &endpoint.Limits{}, SkipPreflight: skipPreflight})
	}
	ts := transport.DefaultSettings()
	ts.Retry = retrySettings()
	c, err := solroute.New(solroute.Options{Endpoints: eps, Transport: &ts, Hooks: solroute.Hooks{Clock: r.clock, Observers: obs}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// txs returns n signed transfers on the chain's latest blockhash, asked
// of c.
func txs(t *testing.T, c *solroute.Client, seed uint64, n int) []*solana.Transaction {
	t.Helper()
	latest, err := c.RPC().GetLatestBlockhash(t.Context(), rpc.CommitmentProcessed)
	if err != nil {
		t.Fatal(err)
	}
	bh := latest.Value.Blockhash.String()
	out := make([]*solana.Transaction, n)
	for i := range out {
		tx, err := fixtures.SignedTransaction(seed+uint64(i), bh)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = tx
	}
	return out
}

// bundleRequests counts the sendBundle requests the engine read.
func (r *bundleRig) bundleRequests() int { return r.engine.Stats().Calls["sendBundle"] }

// attemptEnds is an Observer that hands over every attempt's end.
type attemptEnds chan transport.Attempt

func (a attemptEnds) CallStarted(ctx context.Context, _ transport.CallInfo) context.Context {
	return ctx
}
func (a attemptEnds) AttemptStarted(ctx context.Context, _ transport.CallInfo, _ transport.Attempt) context.Context {
	return ctx
}
func (a attemptEnds) AttemptEnded(_ context.Context, _ transport.CallInfo, at transport.Attempt) {
	a <- at
}
func (a attemptEnds) CallEnded(context.Context, transport.CallInfo, transport.CallResult) {}
