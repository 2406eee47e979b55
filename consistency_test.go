package solroute_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/transport"
)

var somePubkey = solana.MustPublicKeyFromBase58(fixturedata.RecordedTokenOwner)

// excluded is a slog handler that closes its channel at the first record
// whose message names an exclusion: an event to wait on.
type excluded struct {
	once sync.Once
	ch   chan struct{}
}

func (h *excluded) Enabled(context.Context, slog.Level) bool { return true }
func (h *excluded) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "excluded") {
		h.once.Do(func() { close(h.ch) })
	}
	return nil
}
func (h *excluded) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *excluded) WithGroup(string) slog.Handler      { return h }

// TestNoCallReachesAWrongClusterEndpoint tries every entry point of the
// client (typed calls, solana-go's client, raw calls, callbacks, batches,
// sends, hedged reads) against a pool where one endpoint serves devnet
// and the configuration says mainnet-beta: only the guard's one
// getGenesisHash ever reaches it.
func TestNoCallReachesAWrongClusterEndpoint(t *testing.T) {
	good := fakeEndpoint("good")
	defer good.Close()
	devnet := fixtures.NewServer(fixtures.Options{Name: "devnet", Cluster: "devnet"})
	defer devnet.Close()
	ts := transport.DefaultSettings()
	ts.HedgeAfter = time.Millisecond // every read hedges, when it can
	ex := &excluded{ch: make(chan struct{})}
	c, err := solroute.New(solroute.Options{
		Endpoints: []solroute.Endpoint{
			{Name: "good", URL: good.URL(), Read: &endpoint.Limits{}, Send: &endpoint.Limits{}},
			{Name: "devnet", URL: devnet.URL(), Read: &endpoint.Limits{}, Send: &endpoint.Limits{}},
		},
		Cluster:   "mainnet-beta",
		Transport: &ts,
		Hooks:     solroute.Hooks{Logger: slog.New(ex)},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	for range 5 {
		if _, err := c.GetBalance(ctx, somePubkey, solroute.BalanceOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.RPC().GetSlot(ctx, rpc.CommitmentConfirmed); err != nil {
			t.Fatal(err)
		}
		if _, err := c.CallBatch(ctx, jsonrpc.RPCRequests{{Method: "getHealth"}, {Method: "getSlot"}}); err != nil {
			t.Fatal(err)
		}
		if err := c.CallWithCallback(ctx, "getVersion", nil, func(*http.Request, *http.Response) error { return nil }); err != nil {
			t.Fatal(err)
		}
		tx, err := fixtures.SignedTransaction(1, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.RPC().SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-ex.ch:
	case <-time.After(10 * time.Second): // a guard against a hang, never asserted on
		t.Fatal("devnet never excluded")
	}
	if s := snapshotOf(c, "devnet"); s.Verification != endpoint.WrongCluster ||
		s.Excluded != "serves devnet; the configuration says mainnet-beta" {
		t.Fatalf("devnet: %v, %q", s.Verification, s.Excluded)
	}
	reqs := devnet.Requests()
	if len(reqs) != 1 || reqs[0].Method != "getGenesisHash" {
		t.Fatalf("devnet received %d requests: %+v", len(reqs), reqs)
	}
}

func snapshotOf(c *solroute.Client, name string) endpoint.Snapshot {
	for _, s := range c.Snapshot() {
		if s.Name == name {
			return s
		}
	}
	return endpoint.Snapshot{}
}

// TestReadsNeverGoBackInTimeOnEveryEntryPoint: one of three endpoints is
// 100 slots behind; reads through the typed call, solana-go's client and
// hedged reads alike return context slots that never decrease, per
// commitment.
func TestReadsNeverGoBackInTimeOnEveryEntryPoint(t *testing.T) {
	clock := clockwork.NewFakeClock()
	members := []fixtures.Member{{Name: "a"}, {Name: "b"}, {Name: "lagging"}}
	for i := range members {
		members[i].Options.Clock = clock
		members[i].Options.Slots = &fixtures.SlotOptions{}
		members[i].Read, members[i].Send = &endpoint.Limits{}, nil
	}
	members[2].Options.Slots.Lag = 100
	cl := fixtures.NewCluster(members)
	defer cl.Close()
	for _, hedge := range []time.Duration{0, time.Nanosecond} {
		ts := transport.DefaultSettings()
		ts.HedgeAfter = hedge
		c, err := solroute.New(solroute.Options{Endpoints: cl.Endpoints(), Transport: &ts})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		high := map[rpc.CommitmentType]uint64{}
		check := func(what string, c rpc.CommitmentType, slot uint64) {
			t.Helper()
			if slot < high[c] {
				t.Fatalf("hedge %v: %s at %v went back in time: %d after %d", hedge, what, c, slot, high[c])
			}
			high[c] = slot
		}
		for range 20 {
			out, err := c.GetBalance(ctx, somePubkey, solroute.BalanceOptions{Commitment: rpc.CommitmentConfirmed})
			if err != nil {
				t.Fatal(err)
			}
			check("typed getBalance", rpc.CommitmentConfirmed, out.Context.Slot)
			acc, err := c.RPC().GetAccountInfoWithOpts(ctx, somePubkey, &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed})
			if err != nil && err != rpc.ErrNotFound {
				t.Fatal(err)
			}
			if acc != nil {
				check("solana-go getAccountInfo", rpc.CommitmentConfirmed, acc.Context.Slot)
			}
			var raw json.RawMessage
			if err := c.CallForInto(ctx, &raw, "getBalance", []any{somePubkey}); err != nil {
				t.Fatal(err)
			}
			var fin struct{ Context struct{ Slot uint64 } }
			if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&fin); err != nil {
				t.Fatal(err)
			}
			check("raw getBalance", rpc.CommitmentFinalized, fin.Context.Slot)
		}
		_ = c.Close()
	}
}
