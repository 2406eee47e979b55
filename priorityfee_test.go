package solroute_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/transport"
)

// descendingFees pays less in every later slot: in slot order the fees
// run from high to low, so a percentile taken of the answer's order, not
// of the sorted fees, is far off.
func descendingFees(slot uint64, _ []string) uint64 { return (1_000_000_000 - slot) * 100 }

// The percentile is nearest rank over the sorted fees: rank ceil(p·n/100)
// of 150, 0 the lowest and 100 the highest. Taken of the answers in slot
// order, p90 would be 15 ranks from the top instead of 15 from the end.
func TestPriorityFeePercentileOfSortedUnion(t *testing.T) {
	clock := clockwork.NewFakeClock()
	c, cl := feeClient(t, clock, feeMember("a", clock, descendingFees), feeMember("b", clock, descendingFees))
	newest := cl.Server("a").Slot("confirmed")
	lowest := descendingFees(newest, nil)
	for _, tc := range []struct {
		p    float64
		rank uint64 // 1-based, in the sorted fees
	}{{0, 1}, {50, 75}, {75, 113}, {90, 135}, {99, 149}, {100, 150}, {33.33, 50}} {
		got, err := c.PriorityFee(context.Background(), nil, tc.p)
		if err != nil {
			t.Fatal(err)
		}
		if want := lowest + (tc.rank-1)*100; got.MicroLamports != want {
			t.Errorf("p%v = %d, want %d (rank %d of 150)", tc.p, got.MicroLamports, want, tc.rank)
		}
		if got.Samples != 150 || got.FirstSlot != newest-149 || got.LastSlot != newest {
			t.Errorf("p%v covers %d samples, slots %d..%d; want 150, %d..%d", tc.p, got.Samples, got.FirstSlot, got.LastSlot, newest-149, newest)
		}
	}
}

// Two histories merge by slot: a slot both report counts once, at the
// higher fee (b lies low where they overlap), a slot only one reports
// counts too (b is ahead), and slots older than 150 below the newest (a
// is behind) are dropped.
func TestPriorityFeeMergesTwoHistories(t *testing.T) {
	clock := clockwork.NewFakeClock()
	behind := feeMember("a", clock, func(uint64, []string) uint64 { return 1000 })
	behind.Options.Slots.Lag = 10
	c, cl := feeClient(t, clock, behind, feeMember("b", clock, func(uint64, []string) uint64 { return 5 }))
	newest := cl.Server("b").Slot("confirmed")
	for _, tc := range []struct {
		p    float64
		want uint64
	}{{0, 5}, {6, 5}, {7, 1000}, {50, 1000}, {100, 1000}} {
		got, err := c.PriorityFee(context.Background(), nil, tc.p)
		if err != nil {
			t.Fatal(err)
		}
		if got.MicroLamports != tc.want {
			t.Errorf("p%v = %d, want %d", tc.p, got.MicroLamports, tc.want)
		}
		if got.Samples != 150 || got.FirstSlot != newest-149 || got.LastSlot != newest {
			t.Errorf("%d samples over %d..%d, want 150 over %d..%d", got.Samples, got.FirstSlot, got.LastSlot, newest-149, newest)
		}
		if !slices.Equal(got.Endpoints, []string{"a", "b"}) || len(got.Failures) != 0 {
			t.Errorf("endpoints %v, failures %v", got.Endpoints, got.Failures)
		}
	}
}

// An endpoint that is down is replaced by the next one, and reported;
// with no next one the other's answer is the estimate; with none up the
// error carries each endpoint's.
func TestPriorityFeeEndpointDown(t *testing.T) {
	clock := clockwork.NewFakeClock()
	down := feeMember("a", clock, descendingFees)
	down.Options.StartDown = true
	c, cl := feeClient(t, clock, down, feeMember("b", clock, descendingFees), feeMember("c", clock, descendingFees))
	got, err := c.PriorityFee(context.Background(), nil, 50)
	if err != nil {
		t.Fatal(err)
	}
	var ce *transport.CallError
	if !slices.Equal(got.Endpoints, []string{"b", "c"}) || len(got.Failures) != 1 ||
		!errors.As(got.Failures[0], &ce) || !strings.Contains(got.Failures[0].Error(), "last on a") {
		t.Fatalf("endpoints %v, failures %v", got.Endpoints, got.Failures)
	}
	if got.Samples != 150 {
		t.Fatalf("%d samples", got.Samples)
	}

	cl.Server("c").SetDown(true)
	clock.Advance(feeSlotTime)
	got, err = c.PriorityFee(context.Background(), nil, 50)
	if err != nil || !slices.Equal(got.Endpoints, []string{"b"}) || len(got.Failures) != 2 || got.Samples != 150 {
		t.Fatalf("with b alone up: %+v, %v", got, err)
	}

	cl.Server("b").SetDown(true)
	clock.Advance(feeSlotTime)
	_, err = c.PriorityFee(context.Background(), nil, 50)
	if !errors.As(err, &ce) || errors.Is(err, solroute.ErrInvalidInput) {
		t.Fatalf("with none up: %v", err)
	}
	for _, name := range []string{"a", "b", "c"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("the error does not name %s: %v", name, err)
		}
	}
}

// Bad input is an *InputError before any request.
func TestPriorityFeeBadInputSendsNothing(t *testing.T) {
	clock := clockwork.NewFakeClock()
	c, cl := feeClient(t, clock, feeMember("a", clock, descendingFees), feeMember("b", clock, descendingFees))
	many := make([]solana.PublicKey, 129)
	for i := range many {
		many[i][0], many[i][1] = byte(i), 1
	}
	for name, call := range map[string]func() error{
		"129 accounts":  func() error { _, err := c.PriorityFee(context.Background(), many, 50); return err },
		"percentile -1": func() error { _, err := c.PriorityFee(context.Background(), nil, -1); return err },
		"percentile >":  func() error { _, err := c.PriorityFee(context.Background(), nil, 100.01); return err },
		"NaN":           func() error { _, err := c.PriorityFee(context.Background(), nil, math.NaN()); return err },
		"+Inf":          func() error { _, err := c.PriorityFee(context.Background(), nil, math.Inf(1)); return err },
	} {
		var ie *solroute.InputError
		if err := call(); !errors.As(err, &ie) || !errors.Is(err, solroute.ErrInvalidInput) {
			t.Errorf("%s: %v, want an *InputError", name, err)
		}
	}
	if n := feeRequests(cl, "a", "b"); !slices.Equal(n, []int{0, 0}) {
		t.Fatalf("bad input sent %v requests", n)
	}
	dup := append(slices.Clone(many[:128]), many[:5]...) // 133 given, 128 distinct
	if _, err := c.PriorityFee(context.Background(), dup, 50); err != nil {
		t.Fatalf("128 distinct accounts: %v", err)
	}
}
