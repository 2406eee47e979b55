package engine_test

// An error object whose code, message or data is given twice, or once
// more in another spelling, can be read two ways (a review, stop 34).

import (
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/solroute/solroute/internal/engine"
)

// TestRepeatedErrorKeyNeverResendsSend: an error object whose "code" is
// given twice (or once more as "Code", or escaped) reads as -32603 (may
// have acted) to a reader that takes the first key and as -32005 (a proof
// of no dispatch) to encoding/json, which takes the last. README, "Never
// after dispatch": such an answer proves nothing, so the send stops
// ambiguous at a and is never resent to b, on every path: a single call
// (CallForInto through solana-go's RPC()), each batch member, and one
// error object answering the whole batch. message and data are held to
// the same rule.
func TestRepeatedErrorKeyNeverResendsSend(t *testing.T) {
	p1, sig1 := signedTx(t, 91<<11)
	p2, _ := signedTx(t, 91<<11+1)
	for _, cd := range []struct{ name, err string }{
		{"code twice", `{"code":-32603,"message":"m","code":-32005}`},
		{"code and Code", `{"code":-32603,"message":"m","Code":-32005}`},
		{"code escaped", `{"code":-32603,"message":"m","co\u0064e":-32005}`},
		{"Code alone", `{"Code":-32005,"message":"m"}`},
		{"message twice", `{"code":-32005,"message":"m","message":"n"}`},
		{"data and DATA", `{"code":-32005,"message":"m","data":1,"DATA":2}`},
	} {
		t.Run("batch members/"+cd.name, func(t *testing.T) {
			a := newScripted(t, func(string, int) string { return `{"jsonrpc":"2.0","id":` + idToken + `,"error":` + cd.err + `}` })
			b := newScripted(t, func(string, int) string { return rpcResult(`"` + sig1 + `"`) })
			c := newClient(t, scriptedPool(t, a, b), conf{})
			defer c.Close()
			_, err := c.CallBatch(guardCtx(t), jsonrpc.RPCRequests{{Method: "sendTransaction", Params: p1}, {Method: "sendTransaction", Params: p2}})
			if !errors.Is(err, engine.ErrAmbiguousDispatch) || b.requests("sendTransaction") != 0 {
				t.Errorf("err = %v; sends at a %d, at b %d; want ambiguous at a, none at b",
					err, a.requests("sendTransaction"), b.requests("sendTransaction"))
			}
		})
		t.Run("one object for the batch/"+cd.name, func(t *testing.T) {
			a := newRaw(t, func() string { return `{"jsonrpc":"2.0","id":null,"error":` + cd.err + `}` })
			b := newScripted(t, func(string, int) string { return rpcResult(`"` + sig1 + `"`) })
			c := newClient(t, rawPool(t, rawLimits, a.srv.URL, b.srv.URL), conf{})
			defer c.Close()
			_, err := c.CallBatch(guardCtx(t), jsonrpc.RPCRequests{{Method: "sendTransaction", Params: p1}, {Method: "sendTransaction", Params: p2}})
			if !errors.Is(err, engine.ErrAmbiguousDispatch) || b.requests("sendTransaction") != 0 {
				t.Errorf("err = %v; requests at a %d, sends at b %d; want ambiguous at a, none at b",
					err, a.n.Load(), b.requests("sendTransaction"))
			}
		})
		t.Run("RPC() send/"+cd.name, func(t *testing.T) {
			a := newScripted(t, func(string, int) string { return `{"jsonrpc":"2.0","id":` + idToken + `,"error":` + cd.err + `}` })
			b := newScripted(t, func(string, int) string { return rpcResult(`"` + sig1 + `"`) })
			c := newClient(t, scriptedPool(t, a, b), conf{})
			defer c.Close()
			var sig string
			err := rpc.NewWithCustomRPCClient(c).RPCCallForInto(guardCtx(t), &sig, "sendTransaction", p1)
			if !errors.Is(err, engine.ErrAmbiguousDispatch) || b.requests("sendTransaction") != 0 {
				t.Errorf("err = %v; sends at a %d, at b %d; want ambiguous at a, none at b",
					err, a.requests("sendTransaction"), b.requests("sendTransaction"))
			}
		})
	}
}
