package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/retrypolicy"
)

// signedTx returns a signed transaction's sendTransaction params and its
// signature.
func signedTx(t *testing.T, seed uint64) ([]any, string) {
	t.Helper()
	tx, err := fixtures.SignedTransaction(seed, "")
	if err != nil {
		t.Fatal(err)
	}
	b64, err := fixtures.EncodeTransaction(tx)
	if err != nil {
		t.Fatal(err)
	}
	return []any{b64, map[string]any{"encoding": "base64"}}, tx.Signatures[0].String()
}

// ambiguousSendFailures may have reached the server (or its node).
var ambiguousSendFailures = []failure{
	{name: "reset on accept", fault: fixtures.Fault{Kind: fixtures.ResetOnAccept}, cause: retrypolicy.Connection},
	{name: "reset after read", fault: fixtures.Fault{Kind: fixtures.ResetAfterRead}, cause: retrypolicy.Connection},
	{name: "read then hang", fault: fixtures.Fault{Kind: fixtures.Hang}, cause: retrypolicy.Timeout, timeout: true},
	{name: "slow body", fault: fixtures.Fault{Kind: fixtures.SlowBody, Delay: time.Hour}, cause: retrypolicy.Timeout, timeout: true},
	{name: "http 500", fault: fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 500}, cause: retrypolicy.TemporaryHTTP},
	{name: "http 502", fault: fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 502}, cause: retrypolicy.TemporaryHTTP},
	{name: "http 503", fault: fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 503}, cause: retrypolicy.TemporaryHTTP},
	{name: "http 504", fault: fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 504}, cause: retrypolicy.TemporaryHTTP},
	{name: "truncated", fault: fixtures.Fault{Kind: fixtures.Truncated}, cause: retrypolicy.MalformedResponse},
	{name: "malformed", fault: fixtures.Fault{Kind: fixtures.Malformed}, cause: retrypolicy.MalformedResponse},
	{name: "wrong id", fault: fixtures.Fault{Kind: fixtures.WrongID}, cause: retrypolicy.MalformedResponse},
}

func TestSendAtMostOnceUnderAmbiguousFaults(t *testing.T) {
	for i, f := range ambiguousSendFailures {
		t.Run(f.name, func(t *testing.T) {
			e := f.setup(t, 1, conf{})
			params, sig := signedTx(t, uint64(100+i))
			var got solana.Signature
			done := async(func() error { return e.client.CallForInto(context.Background(), &got, "sendTransaction", params) })
			if f.timeout {
				// The server read it: it is not cut before the call's 1 s
				// deadline.
				e.expire(e.server("bad"), 1, time.Second)
			}
			err := wait(t, done)
			if !errors.Is(err, engine.ErrAmbiguousDispatch) {
				t.Fatalf("error %v, want ErrAmbiguousDispatch", err)
			}
			ce := callErr(t, err)
			if len(ce.Attempts) != 1 || ce.Cause != f.cause || ce.Attempts[0].Decision.Retry {
				t.Fatalf("attempts %+v", ce.Attempts)
			}
			bad, good := e.server("bad").Deliveries(sig), e.server("good").Deliveries(sig)
			if bad > 1 || good != 0 {
				t.Fatalf("deliveries: bad %d, good %d; want at most 1 in all", bad, good)
			}
		})
	}
}

// notForwarded are send failures that prove the transaction was not acted
// on: the request never left, or the node refused it before forwarding.
var notForwarded = []failure{
	{name: "refused", down: true, cause: retrypolicy.Connection},
	{name: "tls mismatch", tls: true, cause: retrypolicy.Connection},
	{name: "http 429", fault: fixtures.Fault{Kind: fixtures.HTTPStatus, Status: 429}, cause: retrypolicy.RateLimited},
	{name: "rpc 429", fault: fixtures.Fault{Kind: fixtures.RPCError, RPCCode: 429}, cause: retrypolicy.RateLimited},
	{name: "rpc -32005", fault: fixtures.Fault{Kind: fixtures.RPCError, RPCCode: -32005}, cause: retrypolicy.NodeBehind},
}

func TestSendRetriedElsewhereWhenNotForwarded(t *testing.T) {
	for i, f := range notForwarded {
		t.Run(f.name, func(t *testing.T) {
			rec := newRecorder()
			e := f.setup(t, 1, conf{OnAttempt: rec.on})
			params, sig := signedTx(t, uint64(200+i))
			var got solana.Signature
			if err := f.run(t, e, func() error {
				return e.client.CallForInto(context.Background(), &got, "sendTransaction", params)
			}); err != nil {
				t.Fatal(err)
			}
			if got.String() != sig {
				t.Fatalf("signature %s, want %s", got, sig)
			}
			as := rec.drain()
			if len(as) != 2 || as[0].Endpoint != "bad" || as[0].Cause != f.cause || as[1].Endpoint != "good" {
				t.Fatalf("attempts %+v", as)
			}
			if n := e.server("bad").Forwarded(sig); n != 0 {
				t.Fatalf("bad forwarded %d", n)
			}
			if n := e.server("good").Deliveries(sig); n != 1 {
				t.Fatalf("good deliveries %d, want 1", n)
			}
		})
	}
}
