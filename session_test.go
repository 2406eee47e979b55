package solroute_test

import (
	"context"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
)

// TestSessionSlotTakesSolanaGosCommitment: Session.Slot is asked with
// the rpc.CommitmentType a read was made with (no second commitment type
// to convert to): the confirmed read's slot at confirmed and at its
// deprecated name, nothing at a commitment no read used, nothing at a
// name that is no commitment.
func TestSessionSlotTakesSolanaGosCommitment(t *testing.T) {
	clock := clockwork.NewFakeClock()
	cl := fixtures.NewCluster([]fixtures.Member{{Name: "a", Read: &endpoint.Limits{},
		Options: fixtures.Options{Clock: clock, Slots: &fixtures.SlotOptions{}}}})
	defer cl.Close()
	c, err := solroute.New(solroute.Options{Endpoints: cl.Endpoints()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := new(solroute.Session)
	out, err := c.RPC().GetBalance(solroute.WithSession(context.Background(), s), somePubkey, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		c    rpc.CommitmentType
		want uint64
	}{
		{rpc.CommitmentConfirmed, out.Context.Slot},
		{"singleGossip", out.Context.Slot},
		{rpc.CommitmentFinalized, 0},
		{"", 0},
		{rpc.CommitmentProcessed, 0},
		{"confirmd", 0},
	} {
		if got := s.Slot(tt.c); got != tt.want {
			t.Errorf("Slot(%q) = %d, want %d", tt.c, got, tt.want)
		}
	}
	if out.Context.Slot == 0 {
		t.Fatal("the read returned no context slot")
	}
}
