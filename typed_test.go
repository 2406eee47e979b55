package solroute_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

var owner = solana.MustPublicKeyFromBase58("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")

// newClient starts a cluster (scripts per member) and returns a client
// over it, on a fake clock that is never advanced.
func newClient(t *testing.T, scripts ...fixtures.Script) (*solroute.Client, *fixtures.Cluster) {
	t.Helper()
	var members []fixtures.Member
	for i, sc := range scripts {
		members = append(members, fixtures.Member{Name: string(rune('a' + i)), Tier: i,
			Options: fixtures.Options{Script: sc}})
	}
	cl := fixtures.NewCluster(members)
	ts := transport.DefaultSettings()
	ts.Retry = retrySettings()
	c, err := solroute.New(solroute.Options{Endpoints: cl.Endpoints(), Transport: &ts,
		Hooks: solroute.Hooks{Clock: clockwork.NewFakeClockAt(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}})
	if err != nil {
		cl.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cl.Close()
		_ = c.Close()
	})
	return c, cl
}

func TestTypedMethodsDecodeRecorded(t *testing.T) {
	c, _ := newClient(t, nil)
	ctx := context.Background()
	if err := c.GetHealth(ctx); err != nil {
		t.Fatalf("GetHealth: %v", err)
	}
	v, err := c.GetVersion(ctx)
	if err != nil || v.SolanaCore != fixturedata.RecordedSolanaCore || v.FeatureSet != fixturedata.RecordedFeatureSet {
		t.Fatalf("GetVersion %+v, %v", v, err)
	}
	h, err := c.GetGenesisHash(ctx)
	if err != nil || h.String() != fixturedata.GenesisMainnetBeta {
		t.Fatalf("GetGenesisHash %s, %v", h, err)
	}
	b, err := c.GetBalance(ctx, owner, solroute.BalanceOptions{})
	if err != nil || b.Value != fixturedata.RecordedBalance || b.Context.Slot != fixturedata.RecordedSlot {
		t.Fatalf("GetBalance %+v, %v", b, err)
	}
}

func TestGetBalanceSendsOptions(t *testing.T) {
	c, cl := newClient(t, nil)
	slot := uint64(fixturedata.RecordedSlot - 10)
	if _, err := c.GetBalance(context.Background(), solana.PublicKey{}, solroute.BalanceOptions{
		Commitment: rpc.CommitmentConfirmed, MinContextSlot: &slot}); err != nil {
		t.Fatal(err)
	}
	reqs := cl.Server("a").Requests()
	want := `["11111111111111111111111111111111",{"commitment":"confirmed","minContextSlot":345678891}]`
	if len(reqs) != 1 || string(reqs[0].Params) != want {
		t.Fatalf("params %s, want %s", reqs[0].Params, want)
	}
}

func TestGetBalanceMinContextSlotFailsOver(t *testing.T) {
	behind := fixtures.Always(fixtures.Fault{Kind: fixtures.RPCError, RPCCode: -32016})
	c, cl := newClient(t, behind, nil)
	slot := uint64(fixturedata.RecordedSlot)
	b, err := c.GetBalance(context.Background(), owner, solroute.BalanceOptions{MinContextSlot: &slot})
	if err != nil || b.Value != fixturedata.RecordedBalance {
		t.Fatalf("%+v, %v", b, err)
	}
	if len(cl.Server("a").Requests()) != 1 || len(cl.Server("b").Requests()) != 1 {
		t.Fatal("did not fail over from a to b")
	}
}

func TestInvalidInputSendsNothing(t *testing.T) {
	c, cl := newClient(t, nil)
	_, err := c.GetBalance(context.Background(), owner, solroute.BalanceOptions{Commitment: "recent"})
	var ie *solroute.InputError
	if !errors.Is(err, solroute.ErrInvalidInput) || !errors.As(err, &ie) || ie.Field != "commitment" {
		t.Fatalf("error %v", err)
	}
	if n := len(cl.Server("a").Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

func TestParsePubkey(t *testing.T) {
	for _, tc := range []struct {
		in, reason string
	}{
		{"", "empty"},
		{"0OIl", "base-58"},
		{"abc", "32-byte"},
		{"9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWMX", "32-byte"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, err := solroute.ParsePubkey(tc.in)
			if !errors.Is(err, solroute.ErrInvalidInput) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("ParsePubkey(%q) = %v", tc.in, err)
			}
		})
	}
	pk, err := solroute.ParsePubkey("11111111111111111111111111111111")
	if err != nil || !pk.IsZero() {
		t.Fatalf("system program: %v, %v", pk, err)
	}
}

func TestGetHealthUnhealthy(t *testing.T) {
	unhealthy := fixtures.Always(fixtures.Fault{Kind: fixtures.RPCError, RPCCode: -32005})
	c, cl := newClient(t, unhealthy, unhealthy)
	err := c.GetHealth(context.Background())
	var ue *solroute.UnhealthyError
	if !errors.Is(err, solroute.ErrUnhealthy) || !errors.As(err, &ue) ||
		ue.NumSlotsBehind == nil || *ue.NumSlotsBehind != fixturedata.RecordedSlotsBehind {
		t.Fatalf("error %v", err)
	}
	var ce *transport.CallError
	if !errors.As(err, &ce) || len(ce.Attempts) < 2 {
		t.Fatalf("not failed over: %v", err)
	}
	if len(cl.Server("b").Requests()) == 0 {
		t.Fatal("b never asked")
	}
	// One healthy endpoint is enough.
	c2, _ := newClient(t, unhealthy, nil)
	if err := c2.GetHealth(context.Background()); err != nil {
		t.Fatalf("GetHealth with a healthy peer: %v", err)
	}
}

// TestNullResultIsInvalid: none of the four methods may answer null; a
// node that does gets an invalid-response error, never a nil result.
func TestNullResultIsInvalid(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":null}`, req.ID)
	}))
	defer srv.Close()
	c, err := solroute.FromDocument(&config.Document{Endpoints: []endpoint.Spec{{Name: "nulls", URL: endpoint.NewSecret(srv.URL),
		Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {}}}}},
		solroute.Hooks{Clock: clockwork.NewFakeClockAt(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	_, errBalance := c.GetBalance(ctx, owner, solroute.BalanceOptions{})
	_, errVersion := c.GetVersion(ctx)
	_, errGenesis := c.GetGenesisHash(ctx)
	for name, err := range map[string]error{
		"getHealth": c.GetHealth(ctx), "getBalance": errBalance,
		"getVersion": errVersion, "getGenesisHash": errGenesis,
	} {
		var ce *transport.CallError
		if !errors.As(err, &ce) || ce.Cause != retrypolicy.InvalidResponse {
			t.Errorf("%s: err = %v, want a *transport.CallError with cause invalid-response", name, err)
		}
	}
}

// TestGetBalanceExplicitZeroMinContextSlotOnce: a read that asks
// minContextSlot 0, under monotonic reads with a floor already known,
// goes out with the key once, holding the floor. It went out with the key
// twice, the floor first and the caller's 0 last: a parser that keeps the
// last member (agave's) read 0, and a strict one refused the request.
func TestGetBalanceExplicitZeroMinContextSlotOnce(t *testing.T) {
	c, cl := newClient(t, nil)
	ctx := context.Background()
	if _, err := c.GetBalance(ctx, owner, solroute.BalanceOptions{Commitment: rpc.CommitmentConfirmed}); err != nil {
		t.Fatal(err)
	}
	zero := uint64(0)
	if _, err := c.GetBalance(ctx, owner, solroute.BalanceOptions{Commitment: rpc.CommitmentConfirmed, MinContextSlot: &zero}); err != nil {
		t.Fatal(err)
	}
	var reqs []fixtures.Received
	for _, name := range []string{"a", "b"} {
		if s := cl.Server(name); s != nil {
			reqs = append(reqs, s.Requests()...)
		}
	}
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	last := string(reqs[1].Params)
	if n := strings.Count(last, `"minContextSlot"`); n != 1 {
		t.Fatalf("params %s carry minContextSlot %d times, want once", last, n)
	}
	if want := fmt.Sprintf(`"minContextSlot":%d`, fixturedata.RecordedSlot); !strings.Contains(last, want) {
		t.Fatalf("params %s, want the floor %s", last, want)
	}
}
