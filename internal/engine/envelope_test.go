package engine_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// Answers with a result and an error (issue 20, item 4): JSON-RPC 2.0
// forbids both, and either may be the true one. A send answered so was
// dispatched as far as anyone can tell: it must never be taken for a
// refusal (429, -32005, -32016: sent again, delivered twice) nor for a
// plain failure (-32002: the server returned the signature). A read
// answered so fails over.

// bothMembers are the ways an answer holds a result beside an error, each
// with the refusal codes that made the old decode resend.
var bothMembers = []struct {
	name string
	body func(result string, code int) string
}{
	{"result then error", func(r string, c int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s,"error":{"code":%d,"message":"m"}}`, idToken, r, c)
	}},
	{"error then result", func(r string, c int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":"m"},"result":%s}`, idToken, c, r)
	}},
	{"error in another case", func(r string, c int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s,"Error":{"code":%d,"message":"m"}}`, idToken, r, c)
	}},
	{"result repeated, the last null", func(r string, c int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s,"result":null,"error":{"code":%d,"message":"m"}}`, idToken, r, c)
	}},
}

// envelopeCodes are the refusals (proof of no dispatch, once), the
// caller's rejections and an error that proves nothing.
var envelopeCodes = []int{429, -32005, -32016, -32002, -32602, -32603}

// sendPaths send one transaction through an entry point; batch paths send
// it as the only member of a batch.
var sendPaths = []struct {
	name  string
	batch bool
	send  func(ctx context.Context, c *engine.Engine, params []any, raw []byte) error
}{
	{"CallForInto", false, func(ctx context.Context, c *engine.Engine, params []any, _ []byte) error {
		var sig solana.Signature
		return c.CallForInto(ctx, &sig, "sendTransaction", params)
	}},
	{"solana-go", false, func(ctx context.Context, c *engine.Engine, _ []any, raw []byte) error {
		_, err := rpc.NewWithCustomRPCClient(c).SendRawTransactionWithOpts(ctx, raw, rpc.TransactionOpts{SkipPreflight: true})
		return err
	}},
	{"CallBatch", true, func(ctx context.Context, c *engine.Engine, params []any, _ []byte) error {
		_, err := c.CallBatch(ctx, jsonrpc.RPCRequests{{Method: "sendTransaction", Params: params}})
		return err
	}},
	{"solana-go batch", true, func(ctx context.Context, c *engine.Engine, params []any, _ []byte) error {
		_, err := rpc.NewWithCustomRPCClient(c).RPCCallBatch(ctx, jsonrpc.RPCRequests{{Method: "sendTransaction", Params: params}})
		return err
	}},
}

// TestSendAnsweredWithResultAndErrorIsAmbiguous: a answers every send
// with its signature beside an error; b would accept it. Every path must
// stop at a, ambiguous, malformed: one delivery, never a resend to b,
// never a plain failure.
func TestSendAnsweredWithResultAndErrorIsAmbiguous(t *testing.T) {
	seed := uint64(20 << 10)
	for _, shape := range bothMembers {
		for _, code := range envelopeCodes {
			for _, path := range sendPaths {
				seed++
				name := fmt.Sprintf("%s/%d/%s", shape.name, code, path.name)
				params, sig := signedTx(t, seed)
				raw := rawTx(t, seed)
				a := newScripted(t, func(string, int) string { return shape.body(`"`+sig+`"`, code) })
				b := newScripted(t, func(string, int) string { return rpcResult(`"` + sig + `"`) })
				c := newClient(t, scriptedPool(t, a, b), conf{})
				err := path.send(guardCtx(t), c, params, raw)
				_ = c.Close()
				if !errors.Is(err, engine.ErrAmbiguousDispatch) {
					t.Errorf("%s: err = %v, want ambiguous", name, err)
				}
				var ce *transport.CallError
				if errors.As(err, &ce) && ce.Cause != retrypolicy.MalformedResponse {
					t.Errorf("%s: cause %s, want malformed-response", name, ce.Cause)
				}
				if n := a.requests("sendTransaction") + b.requests("sendTransaction"); n != 1 {
					t.Errorf("%s: delivered %d times (a %d, b %d)", name, n, a.requests("sendTransaction"), b.requests("sendTransaction"))
				}
			}
		}
	}
}

// TestBatchOfSendsAnsweredWithResultAndError: two sends in one batch,
// each answered with its signature beside a 429, used to count as a batch
// every member of which was refused, and was sent again, whole, to b; so
// did one object with both members answering a whole batch.
func TestBatchOfSendsAnsweredWithResultAndError(t *testing.T) {
	p1, sig1 := signedTx(t, 20<<11)
	p2, _ := signedTx(t, 20<<11+1)
	two := jsonrpc.RPCRequests{{Method: "sendTransaction", Params: p1}, {Method: "sendTransaction", Params: p2}}
	for _, tc := range []struct {
		name string
		body string
	}{
		{"each member", bothMembers[0].body(`"`+sig1+`"`, 429)},
		{"one object for the batch", `{"jsonrpc":"2.0","id":null,"result":"` + sig1 + `","error":{"code":429,"message":"m"}}`},
	} {
		a := newScripted(t, func(string, int) string { return tc.body })
		b := newScripted(t, func(string, int) string { return rpcResult(`"` + sig1 + `"`) })
		c := newClient(t, scriptedPool(t, a, b), conf{})
		_, err := c.CallBatch(guardCtx(t), two)
		_ = c.Close()
		if !errors.Is(err, engine.ErrAmbiguousDispatch) {
			t.Errorf("%s: err = %v, want ambiguous", tc.name, err)
		}
		if n := b.requests("sendTransaction"); n != 0 {
			t.Errorf("%s: resent to b (%d members)", tc.name, n)
		}
	}
}

// readPaths read a balance through each entry point that can see the
// answer, returning the value.
var readPaths = []struct {
	name   string
	hedged bool
	read   func(ctx context.Context, c *engine.Engine) (uint64, error)
}{
	{"CallForInto", false, func(ctx context.Context, c *engine.Engine) (uint64, error) {
		var out rpc.GetBalanceResult
		err := c.CallForInto(ctx, &out, "getBalance", []any{somePubkey.String()})
		return out.Value, err
	}},
	{"solana-go", false, func(ctx context.Context, c *engine.Engine) (uint64, error) {
		out, err := rpc.NewWithCustomRPCClient(c).GetBalance(ctx, somePubkey, rpc.CommitmentConfirmed)
		if err != nil {
			return 0, err
		}
		return out.Value, nil
	}},
	{"hedged", true, func(ctx context.Context, c *engine.Engine) (uint64, error) {
		var out rpc.GetBalanceResult
		err := c.CallForInto(ctx, &out, "getBalance", []any{somePubkey.String()})
		return out.Value, err
	}},
	{"CallBatch", false, func(ctx context.Context, c *engine.Engine) (uint64, error) {
		rs, err := c.CallBatch(ctx, jsonrpc.RPCRequests{{Method: "getBalance", Params: []any{somePubkey.String()}}})
		if err != nil {
			return 0, err
		}
		if rs[0].Error != nil {
			return 0, rs[0].Error
		}
		var out rpc.GetBalanceResult
		return out.Value, rs[0].GetObject(&out)
	}},
}

// TestReadAnsweredWithResultAndErrorFailsOver: a answers a balance of 1
// beside an error; the read must take b's answer (2), whatever the code
// (a rejection of the request by a, -32602, used to end the call; a
// batch used to hand a's member over as it was).
func TestReadAnsweredWithResultAndErrorFailsOver(t *testing.T) {
	for _, shape := range bothMembers {
		for _, code := range envelopeCodes {
			for _, path := range readPaths {
				name := fmt.Sprintf("%s/%d/%s", shape.name, code, path.name)
				a := newScripted(t, func(string, int) string { return shape.body(`{"context":{"slot":7},"value":1}`, code) })
				b := newScripted(t, func(string, int) string { return rpcResult(`{"context":{"slot":7},"value":2}`) })
				s := conf{}
				if path.hedged {
					s.HedgeAfter = time.Hour // the first attempt fails long before
				}
				c := newClient(t, scriptedPool(t, a, b), s)
				v, err := path.read(guardCtx(t), c)
				_ = c.Close()
				if err != nil || v != 2 {
					t.Errorf("%s: value %d, err %v; want b's 2", name, v, err)
				}
				if a.requests("getBalance") != 1 || b.requests("getBalance") != 1 {
					t.Errorf("%s: a asked %d times, b %d; want once each", name, a.requests("getBalance"), b.requests("getBalance"))
				}
			}
		}
	}
}

// TestNullMemberBesideTheOther: JSON-RPC 1.0's form, which real servers
// send ("error": null beside a result: solana-web3.js#3721; "result": null
// beside an error: a provider's gateway, getdozer/dozer#1455), is read as
// the member that is not null (plans/003-transport.md). A null carries no
// signature: the refusal beside it proves what it proves alone.
func TestNullMemberBesideTheOther(t *testing.T) {
	params, sig := signedTx(t, 20<<12)
	serve := func(body string) (*scripted, *scripted, *engine.Engine) {
		a := newScripted(t, func(string, int) string { return body })
		b := newScripted(t, func(string, int) string { return rpcResult(`"` + sig + `"`) })
		c := newClient(t, scriptedPool(t, a, b), conf{})
		t.Cleanup(func() { _ = c.Close() })
		return a, b, c
	}
	t.Run("null result beside a refusal", func(t *testing.T) {
		a, b, c := serve(`{"jsonrpc":"2.0","id":` + idToken + `,"result":null,"error":{"code":429,"message":"Too many requests"}}`)
		var got solana.Signature
		if err := c.CallForInto(guardCtx(t), &got, "sendTransaction", params); err != nil || got.String() != sig {
			t.Fatalf("send: %v, %s", err, got)
		}
		if a.requests("sendTransaction") != 1 || b.requests("sendTransaction") != 1 {
			t.Fatalf("a %d, b %d: want the refusal sent on to b", a.requests("sendTransaction"), b.requests("sendTransaction"))
		}
	})
	t.Run("null error beside a result", func(t *testing.T) {
		a, b, c := serve(`{"jsonrpc":"2.0","id":` + idToken + `,"result":"` + sig + `","error":null}`)
		var got solana.Signature
		if err := c.CallForInto(guardCtx(t), &got, "sendTransaction", params); err != nil || got.String() != sig {
			t.Fatalf("send: %v, %s", err, got)
		}
		if a.requests("sendTransaction") != 1 || b.requests("sendTransaction") != 0 {
			t.Fatalf("a %d, b %d: want a's answer", a.requests("sendTransaction"), b.requests("sendTransaction"))
		}
	})
	t.Run("a batch member's null result beside an error is no result", func(t *testing.T) {
		_, _, c := serve(`{"jsonrpc":"2.0","id":` + idToken + `,"result":null,"error":{"code":-32603,"message":"Internal error"}}`)
		rs, err := c.CallBatch(guardCtx(t), jsonrpc.RPCRequests{{Method: "getHealth"}})
		if err != nil || len(rs) != 1 || rs[0].Error == nil || rs[0].Error.Code != -32603 || rs[0].Result != nil {
			t.Fatalf("batch: %v, %+v", err, rs)
		}
	})
}

// rawTx is the wire form of fixtures.SignedTransaction(seed, "").
func rawTx(t *testing.T, seed uint64) []byte {
	t.Helper()
	tx, err := fixtures.SignedTransaction(seed, "")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
