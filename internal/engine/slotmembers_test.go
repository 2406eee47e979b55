package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/internal/engine"
)

// The slot check and the caller's decode must read the same slot (issue
// 20, item 5): encoding/json fills the caller's value from the last of
// repeated keys and matches keys whatever their case, so an answer whose
// slot is spelled twice, or in another case, must not pass the check on
// one slot and hand the caller another.

// twoSlots are answers that hold slot 2000 where a reader of the first
// exact key looks, and slot 1000 where encoding/json does.
var twoSlots = []struct{ name, body string }{
	{"context repeated", `{"jsonrpc":"2.0","id":@ID@,"result":{"context":{"slot":2000},"value":1,"context":{"slot":1000}}}`},
	{"context in another case", `{"jsonrpc":"2.0","id":@ID@,"result":{"context":{"slot":2000},"Context":{"slot":1000},"value":1}}`},
	{"only Context", `{"jsonrpc":"2.0","id":@ID@,"result":{"Context":{"slot":1000},"value":1}}`},
	{"slot repeated", `{"jsonrpc":"2.0","id":@ID@,"result":{"context":{"slot":2000,"slot":1000},"value":1}}`},
	{"slot in another case", `{"jsonrpc":"2.0","id":@ID@,"result":{"context":{"slot":2000,"Slot":1000},"value":1}}`},
	{"result repeated", `{"jsonrpc":"2.0","id":@ID@,"result":{"context":{"slot":2000},"value":1},"result":{"context":{"slot":1000},"value":1}}`},
	{"Result beside result", `{"jsonrpc":"2.0","id":@ID@,"result":{"context":{"slot":2000},"value":1},"Result":{"context":{"slot":1000},"value":1}}`},
	{"only Result", `{"jsonrpc":"2.0","id":@ID@,"Result":{"context":{"slot":1000},"value":1}}`},
	{"no context", `{"jsonrpc":"2.0","id":@ID@,"result":{"value":1}}`},
}

// slotReads read a balance at confirmed through the entry points that
// track slots, returning the context slot the caller got.
var slotReads = []struct {
	name   string
	hedged bool
	read   func(ctx context.Context, c *engine.Engine) (uint64, error)
}{
	{"CallForInto", false, func(ctx context.Context, c *engine.Engine) (uint64, error) {
		var out rpc.GetBalanceResult
		err := c.CallForInto(ctx, &out, "getBalance", []any{somePubkey.String(), rpc.M{"commitment": "confirmed"}})
		return out.Context.Slot, err
	}},
	{"solana-go", false, func(ctx context.Context, c *engine.Engine) (uint64, error) {
		out, err := rpc.NewWithCustomRPCClient(c).GetBalance(ctx, somePubkey, rpc.CommitmentConfirmed)
		if err != nil {
			return 0, err
		}
		return out.Context.Slot, nil
	}},
	{"hedged", true, func(ctx context.Context, c *engine.Engine) (uint64, error) {
		var out *rpc.GetBalanceResult
		err := c.CallForInto(ctx, &out, "getBalance", []any{somePubkey.String(), rpc.M{"commitment": "confirmed"}})
		if out == nil {
			return 0, err
		}
		return out.Context.Slot, err
	}},
}

// TestSlotCheckReadsTheSlotTheCallerGets: a answers slot 2000, then one
// of twoSlots; b (tier 1) answers 2000. The second read must never hand
// the caller 1000: it is refused at a and answered by b.
func TestSlotCheckReadsTheSlotTheCallerGets(t *testing.T) {
	for _, hostile := range twoSlots {
		for _, path := range slotReads {
			name := fmt.Sprintf("%s/%s", hostile.name, path.name)
			a := newScripted(t, func(_ string, n int) string {
				if n == 1 {
					return rpcResult(`{"context":{"slot":2000},"value":1}`)
				}
				return hostile.body
			})
			b := newScripted(t, func(string, int) string { return rpcResult(`{"context":{"slot":2000},"value":2}`) })
			s := conf{}
			if path.hedged {
				s.HedgeAfter = time.Hour
			}
			c := newClient(t, scriptedPool(t, a, b), s)
			first, err := path.read(guardCtx(t), c)
			if err != nil || first != 2000 {
				t.Fatalf("%s: first read: slot %d, %v", name, first, err)
			}
			second, err := path.read(guardCtx(t), c)
			_ = c.Close()
			if second < 2000 {
				t.Errorf("%s: the caller got slot %d after 2000 (err %v)", name, second, err)
			}
			if err != nil || b.requests("getBalance") != 1 {
				t.Errorf("%s: err %v, b asked %d times; want b's answer", name, err, b.requests("getBalance"))
			}
		}
	}
}
