package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// fuzzMethods are the four typed calls whose answers are fuzzed.
var fuzzMethods = [...]string{"getHealth", "getVersion", "getGenesisHash", "getBalance"}

// FuzzResponse serves a fuzzed body (idToken replaced by the request's id)
// as the answer to one of the four typed calls, through the whole
// transport. Whatever the body: no panic, no hang (each call is guarded),
// no unbounded allocation (the transport reads at most its 1 MiB limit),
// and a failure is a classified *transport.CallError (or the methods
// package's *UnhealthyError for getHealth) that never shows the URL.
func FuzzResponse(f *testing.F) {
	for _, name := range fixturedata.RecordedNames() {
		if body, err := fixturedata.Recorded(name); err == nil {
			f.Add(uint8(0), []byte(strings.Replace(string(body), `"id":1`, `"id":`+idToken, 1)))
		}
	}
	seeds := []string{
		`{"jsonrpc":"2.0","id":@ID@,"result":"ok"}`,
		`{"jsonrpc":"2.0","id":@ID@,"result":{"solana-core":"2.2.14","feature-set":3294202862}}`,
		`{"jsonrpc":"2.0","id":@ID@,"result":"5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d"}`,
		`{"jsonrpc":"2.0","id":@ID@,"result":{"context":{"slot":7},"value":42}}`,
		`{"jsonrpc":"2.0","id":@ID@,"error":{"code":-32005,"message":"Node is behind by 42 slots","data":{"numSlotsBehind":42}}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":@ID@,"error":{"code":429,"message":"Too many requests"}}`,
		`{"jsonrpc":"2.0","id":@ID@,"error":{"code":"x"}}`,
		`{"jsonrpc":"2.0","id":@ID@,"id":3,"result":1}`,
		`[{"jsonrpc":"2.0","id":@ID@,"result":"ok"}]`,
		`{"jsonrpc":"2.0","id":@ID@,"result":[[[[[[[[[[]]]]]]]]]]}`,
		"{\"jsonrpc\":\"2.0\",\"id\":@ID@,\"result\":\"\xff\xfe\"}",
		`{"jsonrpc":"2.0","id":@ID@,"result":null}`,
		// Both members, JSON-RPC 1.0's nulls, repeated and case-variant keys.
		`{"jsonrpc":"2.0","id":@ID@,"result":"ok","error":{"code":429,"message":"Too many requests"}}`,
		`{"jsonrpc":"2.0","id":@ID@,"result":null,"error":{"code":-32005,"message":"Node is behind"}}`,
		`{"jsonrpc":"2.0","id":@ID@,"result":{"context":{"slot":7},"value":42},"error":null}`,
		`{"jsonrpc":"2.0","id":@ID@,"Result":"ok"}`,
		`{"jsonrpc":"2.0","id":@ID@,"result":"ok","result":"ok"}`,
		`{"jsonrpc":"2.0","id":@ID@,"result":{"context":{"slot":7},"Context":{"slot":6},"value":42}}`,
		`{"jsonrpc":"2.0","id":@ID@,"result":{"context":{"slot":7,"slot":6},"value":42}}`,
		`{"jsonrpc":"2.0","id":@ID@,"result":{"context":{"slot":7},"value":42,"VALUE":43}}`,
		`{"jsonrpc":"2.0","id":@ID@,"result":{"value":42}}`,
		``, `null`, `{}`, `<html>502</html>`,
	}
	for i, s := range seeds {
		f.Add(uint8(i), []byte(s))
	}
	h := newHostileServer(f)
	_, mc := hostileClient(f, h)
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		h.set(answer{body: body})
		method := fuzzMethods[int(which)%len(fuzzMethods)]
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var err error
		switch method {
		case "getHealth":
			err = mc.GetHealth(ctx)
		case "getVersion":
			_, err = mc.GetVersion(ctx)
		case "getGenesisHash":
			_, err = mc.GetGenesisHash(ctx)
		case "getBalance":
			_, err = mc.GetBalance(ctx, solana.SystemProgramID, solroute.BalanceOptions{})
		}
		if ctx.Err() != nil {
			t.Fatalf("%s: the call hung until its guard: %v", method, err)
		}
		if err == nil {
			return
		}
		if strings.Contains(err.Error(), hostileSecret) {
			t.Fatalf("%s: error text shows the URL: %v", method, err)
		}
		var ce *transport.CallError
		var ue *solroute.UnhealthyError
		switch {
		case errors.As(err, &ce):
			if ce.Cause == 0 || ce.Cause == retrypolicy.Canceled || ce.Cause == retrypolicy.Timeout {
				t.Fatalf("%s: unexpected cause %s: %v", method, ce.Cause, err)
			}
		case errors.As(err, &ue):
		default:
			t.Fatalf("%s: unclassified error %T: %v", method, err, err)
		}
	})
}
