package solroute_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/ws"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
)

// TestAccountSubscribeAcrossADrop: an account held on two endpoints, one
// cut (its sockets reset, its listener down) mid-way and back later, the
// other cut after: every change is delivered once, in context-slot order,
// and the subscription never ends.
func TestAccountSubscribeAcrossADrop(t *testing.T) {
	e := newSubEnv(t, []string{"a", "b"}, nil)
	acct := testKey(7)
	sub, err := e.client.AccountSubscribe(subCtx(t), acct, &solroute.AccountSubscribeOptions{Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatal(err)
	}
	e.settle()
	const changes = 24
	var got []solroute.Notification[*ws.AccountResult]
	for i := range changes + 12 {
		switch i {
		case 8:
			e.cluster.PubSub("a").SetDown(true)
		case 14:
			e.cluster.PubSub("a").SetDown(false)
		case 18:
			e.cluster.PubSub("b").Drop()
		}
		if i < changes {
			e.setLamports(acct, uint64(i+1))
		}
		e.steps(1)
		got = append(got, drainSub(sub)...)
	}
	var lastSlot, lastLamports uint64
	endpoints := map[string]int{}
	for i, n := range got {
		l := n.Value.Value.Lamports
		if n.Slot < lastSlot || n.Value.Context.Slot < lastSlot {
			t.Errorf("delivery %d: context slot %d after %d", i, n.Slot, lastSlot)
		}
		if l != lastLamports+1 {
			t.Errorf("delivery %d: %d lamports after %d (a change missed, repeated or older)", i, l, lastLamports)
		}
		lastSlot, lastLamports = n.Slot, l
		endpoints[n.Endpoint]++
	}
	if len(got) != changes || lastLamports != changes {
		t.Errorf("%d deliveries, last %d lamports; want %d, each change once", len(got), lastLamports, changes)
	}
	t.Logf("first deliveries by endpoint: %v", endpoints)
	if err := sub.Err(); err != nil {
		t.Errorf("Err() = %v", err)
	}
}

// TestAccountSubscribeReadsBackThroughThePool: a change that landed before
// the subscribe (no notification will ever carry it) is delivered at once,
// read over HTTP through the client's pool (ReadBack, no endpoint named),
// and only once.
func TestAccountSubscribeReadsBackThroughThePool(t *testing.T) {
	e := newSubEnv(t, []string{"a", "b"}, nil)
	acct := testKey(8)
	e.setLamports(acct, 42)
	e.clock.Advance(time.Duration(fixturedata.ConfirmedDepth+2) * slotTime) // lands and is confirmed
	sub, err := e.client.AccountSubscribe(subCtx(t), acct, &solroute.AccountSubscribeOptions{Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatal(err)
	}
	e.steps(3)
	got := drainSub(sub)
	if len(got) != 1 || !got[0].ReadBack || got[0].Endpoint != "" || got[0].Value.Value.Lamports != 42 {
		t.Fatalf("deliveries %+v, want the state read back once", got)
	}
	var reads int
	for _, n := range []string{"a", "b"} {
		for _, r := range e.cluster.Server(n).Requests() {
			if r.Method == "getMultipleAccounts" {
				reads++
			}
		}
	}
	if reads == 0 {
		t.Error("no getMultipleAccounts reached the cluster's HTTP side")
	}
}

// TestSlotSubscribeSurvivesAStall: one of two endpoints goes silent with
// its sockets open; the slot subscription delivers every slot once, in
// order, through the stall and after it ends.
func TestSlotSubscribeSurvivesAStall(t *testing.T) {
	e := newSubEnv(t, []string{"a", "b"}, nil)
	sub, err := e.client.SlotSubscribe(subCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	e.settle()
	var got []solroute.Notification[*ws.SlotResult]
	for i := range 40 {
		switch i {
		case 5:
			e.cluster.PubSub("a").SetFaults(fixtures.PubSubFaults{Stall: true})
		case 25:
			e.cluster.PubSub("a").SetFaults(fixtures.PubSubFaults{})
		}
		e.steps(1)
		got = append(got, drainSub(sub)...)
	}
	if len(got) < 39 {
		t.Fatalf("%d slots delivered over 40 slots", len(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i].Value.Slot != got[i-1].Value.Slot+1 {
			t.Errorf("slot %d after %d: missed or repeated", got[i].Value.Slot, got[i-1].Value.Slot)
		}
	}
	if err := sub.Err(); err != nil {
		t.Errorf("Err() = %v", err)
	}
}

// TestSubscribeBadInputBeforeAnyConnection: a zero key or signature, an
// unknown commitment or encoding, filters a node refuses are an
// *InputError (errors.Is ErrInvalidInput) before any WebSocket is opened;
// so is a subscribe on a client with no subscribe endpoint
// (errors.Is ErrNoEndpoint).
func TestSubscribeBadInputBeforeAnyConnection(t *testing.T) {
	e := newSubEnv(t, []string{"a"}, nil)
	c, ctx, k := e.client, subCtx(t), testKey(1)
	tooMany := make([]rpc.RPCFilter, 5)
	for i := range tooMany {
		tooMany[i] = rpc.RPCFilter{DataSize: 165}
	}
	bad := map[string]func() error{
		"zero pubkey": func() error { _, err := c.AccountSubscribe(ctx, solana.PublicKey{}, nil); return err },
		"unknown encoding": func() error {
			_, err := c.AccountSubscribe(ctx, k, &solroute.AccountSubscribeOptions{Encoding: "base32"})
			return err
		},
		"unknown commitment": func() error {
			_, err := c.AccountSubscribe(ctx, k, &solroute.AccountSubscribeOptions{Commitment: "recent-ish"})
			return err
		},
		"program encoding": func() error {
			_, err := c.ProgramSubscribe(ctx, k, &solroute.ProgramSubscribeOptions{Encoding: "json"})
			return err
		},
		"empty filter": func() error {
			_, err := c.ProgramSubscribe(ctx, k, &solroute.ProgramSubscribeOptions{Filters: []rpc.RPCFilter{{}}})
			return err
		},
		"five filters": func() error {
			_, err := c.ProgramSubscribe(ctx, k, &solroute.ProgramSubscribeOptions{Filters: tooMany})
			return err
		},
		"zero signature": func() error { _, err := c.SignatureSubscribe(ctx, solana.Signature{}, ""); return err },
		"logs commitment": func() error {
			_, err := c.LogsSubscribe(ctx, solroute.LogsFilter{}, "max")
			return err
		},
	}
	for name, f := range bad {
		var ie *solroute.InputError
		if err := f(); !errors.Is(err, solroute.ErrInvalidInput) || !errors.As(err, &ie) {
			t.Errorf("%s: %v, want an *InputError", name, err)
		}
	}
	if _, started := solroute.SubscribeActivity(c); started || e.cluster.PubSub("a").Stats().Handshakes != 0 {
		t.Errorf("a connection was made for bad input (engine started %v)", started)
	}
	httpOnly := e.cluster.Endpoints()
	httpOnly[0].Subscribe, httpOnly[0].WSURL = nil, ""
	c2, err := solroute.New(solroute.Options{Endpoints: httpOnly, Hooks: solroute.Hooks{Clock: e.clock}})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if _, err := c2.SlotSubscribe(ctx); !errors.Is(err, solroute.ErrNoEndpoint) || !strings.Contains(err.Error(), "subscribe role") {
		t.Errorf("no subscribe endpoint: %v, want ErrNoEndpoint naming the role", err)
	}
	if n := e.cluster.PubSub("a").Stats().Handshakes; n != 0 {
		t.Errorf("%d handshakes for a client with no subscribe endpoint", n)
	}
}
