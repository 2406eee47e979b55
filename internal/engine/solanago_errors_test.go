package engine_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/transport"
)

// solanaGoRPCError is the *jsonrpc.RPCError errors.As finds in err, or
// fails the test.
func solanaGoRPCError(t *testing.T, err error) *jsonrpc.RPCError {
	t.Helper()
	var re *jsonrpc.RPCError
	if !errors.As(err, &re) {
		t.Fatalf("errors.As(%T %v, *jsonrpc.RPCError) = false", err, err)
	}
	return re
}

// TestSolanaGoRPCErrorIsReachable: a JSON-RPC error answered through the
// pool is a *jsonrpc.RPCError for errors.As, equal to the one solana-go's
// own client returns for the same answer, on every path (CallForInto,
// solana-go's rpc.Client over the pool, CallBatch), and still a
// *transport.CallError and a *transport.RPCError.
func TestSolanaGoRPCErrorIsReachable(t *testing.T) {
	a := member("a", 0)
	a.Options.Script = fixtures.ByMethod(map[string]fixtures.Fault{
		"getBlock":        fixtures.RPC(-32009),
		"sendTransaction": fixtures.RPC(-32002),
		"getSlot":         fixtures.RPC(429),
	})
	e := newEnv(t, []fixtures.Member{a}, conf{Retry: noRetries}, nil)
	ctx := context.Background()
	over := rpc.NewWithCustomRPCClient(e.client)
	plain := rpc.New(e.server("a").URL()) // solana-go's own client, for what it returns

	t.Run("CallForInto getBlock -32009", func(t *testing.T) {
		var out any
		err := e.client.CallForInto(ctx, &out, "getBlock", []any{uint64(5)})
		if re := solanaGoRPCError(t, err); re.Code != -32009 {
			t.Fatalf("code %d, want -32009", re.Code)
		}
		var tre *transport.RPCError
		if !errors.As(err, &tre) || tre.Code != -32009 || len(callErr(t, err).Attempts) != 1 {
			t.Fatalf("err %v: want a *CallError of one attempt reaching a *transport.RPCError -32009", err)
		}
	})
	t.Run("rpc.Client getBlock -32009", func(t *testing.T) {
		_, err := over.GetBlock(ctx, 5)
		_, want := plain.GetBlock(ctx, 5)
		if got := solanaGoRPCError(t, err); !reflect.DeepEqual(got, solanaGoRPCError(t, want)) {
			t.Fatalf("through the pool %#v, solana-go's own %#v", got, want)
		}
	})
	t.Run("rpc.Client sendTransaction -32002", func(t *testing.T) {
		tx := signedSolanaTx(t, 7)
		_, err := over.SendTransaction(ctx, tx)
		_, want := plain.SendTransaction(ctx, tx)
		got := solanaGoRPCError(t, err)
		if !reflect.DeepEqual(got, solanaGoRPCError(t, want)) {
			t.Fatalf("through the pool %#v, solana-go's own %#v", got, want)
		}
		// The simulation's logs, where solana-go users read them.
		if data, ok := got.Data.(map[string]any); !ok || data["logs"] == nil {
			t.Fatalf("data %#v: want the simulation result", got.Data)
		}
		if errors.Is(err, engine.ErrAmbiguousDispatch) {
			t.Fatal("a preflight failure is a refusal, not ambiguous")
		}
	})
	t.Run("CallBatch every member 429", func(t *testing.T) {
		_, err := e.client.CallBatch(ctx, jsonrpc.RPCRequests{{Method: "getSlot"}, {Method: "getSlot"}})
		if re := solanaGoRPCError(t, err); re.Code != 429 {
			t.Fatalf("code %d, want 429", re.Code)
		}
		callErr(t, err)
	})
}

// TestSolanaGoHTTPErrorIsReachable: a failure status is a
// *jsonrpc.HTTPError with the status as its Code, as solana-go's own
// client returns it, and still a *transport.StatusError; a send's is also
// still ambiguous.
func TestSolanaGoHTTPErrorIsReachable(t *testing.T) {
	a := member("a", 0)
	a.Options.Script = fixtures.Always(fixtures.Status(503, ""))
	e := newEnv(t, []fixtures.Member{a}, conf{Retry: noRetries}, nil)
	ctx := context.Background()
	_, want := rpc.New(e.server("a").URL()).GetSlot(ctx, rpc.CommitmentProcessed)
	var plainHE *jsonrpc.HTTPError
	if !errors.As(want, &plainHE) || plainHE.Code != 503 {
		t.Fatalf("solana-go's own client: %v", want)
	}
	tx := signedSolanaTx(t, 8)
	for name, call := range map[string]func() error{
		"read": func() error {
			_, err := rpc.NewWithCustomRPCClient(e.client).GetSlot(ctx, rpc.CommitmentProcessed)
			return err
		},
		"send": func() error {
			_, err := rpc.NewWithCustomRPCClient(e.client).SendTransaction(ctx, tx)
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			err := call()
			var he *jsonrpc.HTTPError
			var se *transport.StatusError
			if !errors.As(err, &he) || he.Code != 503 || !errors.As(err, &se) || se.StatusCode != 503 {
				t.Fatalf("err %v: want a *jsonrpc.HTTPError and a *transport.StatusError, both 503", err)
			}
			if amb := errors.Is(err, engine.ErrAmbiguousDispatch); amb != (name == "send") {
				t.Fatalf("ambiguous %v for a %s", amb, name)
			}
		})
	}
}

// signedSolanaTx is a signed transfer as solana-go builds it.
func signedSolanaTx(t *testing.T, seed uint64) *solana.Transaction {
	t.Helper()
	tx, err := fixtures.SignedTransaction(seed, "")
	if err != nil {
		t.Fatal(err)
	}
	return tx
}
