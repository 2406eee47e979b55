package solroute_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/transport"
)

// readAccountsBulk reads n keys over three endpoints behind f with opts
// and checks the answer is complete and in order; it returns the
// fixture and the result.
func readAccountsBulk(ctx context.Context, t testing.TB, f *front, n int, opts solroute.BulkOptions) (*bulkFixture, *solroute.BulkResult[*rpc.Account]) {
	t.Helper()
	fx := newBulkFixture(t, f, n, []uint64{0, 0, 0}, make([]fixtures.Script, 3))
	res, err := fx.client.GetMultipleAccountsBulk(ctx, bulkKeys(n), opts)
	if err != nil {
		t.Fatal(err)
	}
	checkAccounts(t, res.Value, n)
	return fx, res
}

// TestBulkAccountsInOrderUnderTheCap: 20 000 keys in 200 chunks over three
// endpoints come back complete and in order, with never more chunks in
// flight on the servers than the cap (the gate holds requests until the
// cap is reached: a runner that kept no cap shows a peak above it), and
// every chunk after the first asks for the first chunk's slot, with
// monotonic reads off too (the floor is the bulk read's own).
func TestBulkAccountsInOrderUnderTheCap(t *testing.T) {
	for _, tc := range []struct {
		name      string
		inFlight  int
		want      int64
		monotonic bool
	}{{"default", 0, 32, true}, {"eight, monotonic reads off", 8, 8, false}} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 20000
			f := newFront(int(tc.want), 1)
			ctx := solroute.WithMonotonicReads(context.Background(), tc.monotonic)
			fx, res := readAccountsBulk(ctx, t, f, n, solroute.BulkOptions{InFlight: tc.inFlight, Commitment: rpc.CommitmentProcessed})
			if got := f.peak.Load(); got != tc.want {
				t.Errorf("peak in flight %d, want the cap %d", got, tc.want)
			}
			if got := f.requests.Load(); got != n/100 {
				t.Errorf("%d requests for %d chunks", got, n/100)
			}
			if res.Floor == 0 || res.HighestSlot < res.Floor {
				t.Errorf("floor %d, highest %d", res.Floor, res.HighestSlot)
			}
			checkFloorAsked(t, fx, res.Floor)
		})
	}
}

// checkFloorAsked fails t unless every getMultipleAccounts request but
// the first one asked for minContextSlot floor.
func checkFloorAsked(t *testing.T, fx *bulkFixture, floor uint64) {
	t.Helper()
	unfloored := 0
	for _, name := range []string{"a", "b", "c"} {
		for _, r := range fx.cluster.Server(name).Requests() {
			if r.Method == "getMultipleAccounts" && r.MinContextSlot != floor {
				unfloored++
			}
		}
	}
	if unfloored > 1 { // the first chunk, which sets the floor
		t.Errorf("%d requests did not ask for the floor %d", unfloored, floor)
	}
}

// TestBulkAccountsEmpty: no keys, no request, an empty result.
func TestBulkAccountsEmpty(t *testing.T) {
	f := newFront(0, 0)
	fx := newBulkFixture(t, f, 0, []uint64{0}, make([]fixtures.Script, 1))
	res, err := fx.client.GetMultipleAccountsBulk(context.Background(), nil, solroute.BulkOptions{})
	if err != nil || len(res.Value) != 0 || f.requests.Load() != 0 {
		t.Fatalf("%+v, %v, %d requests", res, err, f.requests.Load())
	}
}

// TestBulkBadInputSendsNothing: each bad input is an *InputError before
// any request reaches a server.
func TestBulkBadInputSendsNothing(t *testing.T) {
	f := newFront(0, 0)
	fx := newBulkFixture(t, f, 0, []uint64{0}, make([]fixtures.Script, 1))
	c, ctx := fx.client, context.Background()
	keys := bulkKeys(300)
	unset := append(bulkKeys(250), solana.PublicKey{})
	sigs := []solana.Signature{{1}, {}}
	for _, tc := range []struct {
		name, field string
		call        func() error
	}{
		{"zero key", "keys[250]", func() error { _, err := c.GetMultipleAccountsBulk(ctx, unset, solroute.BulkOptions{}); return err }},
		{"101 keys a request", "chunk size", func() error {
			_, err := c.GetMultipleAccountsBulk(ctx, keys, solroute.BulkOptions{ChunkSize: 101})
			return err
		}},
		{"negative cap", "in-flight cap", func() error {
			_, err := c.GetMultipleAccountsBulk(ctx, keys, solroute.BulkOptions{InFlight: -1})
			return err
		}},
		{"commitment", "commitment", func() error {
			_, err := c.GetMultipleAccountsBulk(ctx, keys, solroute.BulkOptions{Commitment: "recent"})
			return err
		}},
		{"encoding", "encoding", func() error {
			_, err := c.GetMultipleAccountsBulk(ctx, keys, solroute.BulkOptions{Encoding: solana.EncodingJSON})
			return err
		}},
		{"zero signature", "signatures[1]", func() error {
			_, err := c.GetSignatureStatusesBulk(ctx, sigs, solroute.BulkOptions{})
			return err
		}},
		{"257 signatures a request", "chunk size", func() error {
			_, err := c.GetSignatureStatusesBulk(ctx, sigs[:1], solroute.BulkOptions{ChunkSize: 257})
			return err
		}},
		{"two transactions a request", "chunk size", func() error {
			_, err := c.GetTransactionsBulk(ctx, sigs[:1], solroute.BulkOptions{ChunkSize: 2})
			return err
		}},
		{"processed history", "commitment", func() error {
			_, err := c.GetTransactionsBulk(ctx, sigs[:1], solroute.BulkOptions{Commitment: rpc.CommitmentProcessed})
			return err
		}},
		{"zero transaction", "signatures[1]", func() error { _, err := c.GetTransactionsBulk(ctx, sigs, solroute.BulkOptions{}); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var in *solroute.InputError
			if !errors.As(err, &in) || !errors.Is(err, solroute.ErrInvalidInput) || in.Field != tc.field {
				t.Fatalf("got %v, want an *InputError on %s", err, tc.field)
			}
			t.Log(err)
		})
	}
	if n := f.requests.Load(); n != 0 {
		t.Fatalf("%d requests reached a server", n)
	}
}

// failKey is a script that answers 503 to every getMultipleAccounts
// request holding key.
func failKey(key solana.PublicKey) fixtures.Script {
	k := key.String()
	return func(c fixtures.Call) fixtures.Fault {
		if c.Method == "getMultipleAccounts" && strings.Contains(string(c.Params), k) {
			return fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 503}
		}
		return fixtures.Fault{}
	}
}

// TestBulkChunkFailingOnOneEndpointIsServedElsewhere: endpoint b answers
// 503 to every chunk; the pool asks the others and the result is
// complete, with no error.
func TestBulkChunkFailingOnOneEndpointIsServedElsewhere(t *testing.T) {
	const n = 5000
	all := fixtures.ByMethod(map[string]fixtures.Fault{"getMultipleAccounts": {Kind: fixtures.HTTPStatus, Status: 503}})
	fx := newBulkFixture(t, newFront(0, 0), n, []uint64{0, 0, 0}, []fixtures.Script{nil, all, nil})
	res, err := fx.client.GetMultipleAccountsBulk(context.Background(), bulkKeys(n), solroute.BulkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkAccounts(t, res.Value, n)
	if got := fx.cluster.Server("b").Stats().Calls["getMultipleAccounts"]; got == 0 {
		t.Fatal("b was never asked: the test proves nothing")
	}
}

// TestBulkChunkFailingEverywhereIsNamed: every endpoint answers 503 to the
// chunk holding one key: that chunk's inputs are nil, every other input
// is read, and the error is a *BulkError naming that range, its cause a
// *transport.CallError. In the first chunk (the one that sets the floor)
// the next chunk sets it instead.
func TestBulkChunkFailingEverywhereIsNamed(t *testing.T) {
	for _, chunk := range []int{5, 0} {
		t.Run(map[int]string{0: "first", 5: "sixth"}[chunk], func(t *testing.T) {
			const n = 3000
			s := failKey(bulkKey(chunk*100 + 42))
			fx := newBulkFixture(t, newFront(0, 0), n, []uint64{0, 0, 0}, []fixtures.Script{s, s, s})
			res, err := fx.client.GetMultipleAccountsBulk(context.Background(), bulkKeys(n), solroute.BulkOptions{})
			var be *solroute.BulkError
			if !errors.As(err, &be) {
				t.Fatalf("got %v, want a *BulkError", err)
			}
			lo, hi := chunk*100, chunk*100+100
			if be.Method != "getMultipleAccounts" || be.Inputs != n || len(be.Failed) != 1 ||
				be.Failed[0].Start != lo || be.Failed[0].End != hi {
				t.Fatalf("got %+v, want inputs %d-%d failed", be, lo, hi-1)
			}
			var ce *transport.CallError
			if !errors.As(err, &ce) || !errors.As(be.Failed[0].Err, &ce) {
				t.Fatalf("cause %v is no *transport.CallError", be.Failed[0].Err)
			}
			if !strings.Contains(err.Error(), "100 of 3000 inputs not read; inputs "+strconv.Itoa(lo)+"-"+strconv.Itoa(hi-1)) {
				t.Errorf("message %q", err)
			}
			checkAccounts(t, res.Value, n, [2]int{lo, hi})
			if res.Floor == 0 {
				t.Error("no floor")
			}
		})
	}
}

// TestBulkCancelledSendsNothingMore: a context already done fails the
// first chunk and leaves the rest unsent, errors.Is-reachable.
func TestBulkCancelledSendsNothingMore(t *testing.T) {
	fx := newBulkFixture(t, newFront(0, 0), 0, []uint64{0}, make([]fixtures.Script, 1))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := fx.client.GetMultipleAccountsBulk(ctx, bulkKeys(1000), solroute.BulkOptions{})
	var be *solroute.BulkError
	if !errors.Is(err, context.Canceled) || !errors.As(err, &be) || len(res.Value) != 1000 {
		t.Fatalf("got %v", err)
	}
	if len(be.Failed) != 2 || be.Failed[1].Start != 100 || be.Failed[1].End != 1000 {
		t.Fatalf("failed %+v", be.Failed)
	}
	if n := fx.front.requests.Load(); n != 0 {
		t.Fatalf("%d requests", n)
	}
}
