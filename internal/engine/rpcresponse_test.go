package engine_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/fixtures"
)

// Every method agave answers with an RpcResponse carries its answer's slot
// in context.slot; through solana-go's client over the pool, none may
// return an answer older than one already returned (issue 20, item 6).

// rpcResponseList reads the methods of methods/testdata/rpcresponse.txt,
// the list taken from agave's rpc.rs (its header names the commits).
func rpcResponseList(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../slots/testdata/rpcresponse.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 1 && !strings.HasPrefix(f[0], "#") {
			out = append(out, f[0])
		}
	}
	return out
}

// anyHash is a blockhash for requests and answers.
const anyHash = "4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn"

// rpcResponseCall is one listed method through solana-go's client: the
// value its answer carries, and the call, which returns the context slot
// the caller got.
type rpcResponseCall struct {
	value string
	call  func(ctx context.Context, c *rpc.Client) (uint64, error)
}

// rpcResponseCalls has an entry for every listed method.
func rpcResponseCalls(t *testing.T) map[string]rpcResponseCall {
	tx, err := fixtures.SignedTransaction(7, "")
	if err != nil {
		t.Fatal(err)
	}
	calls := deprecatedCalls()
	for _, m := range []map[string]rpcResponseCall{accountCalls(), bankCalls(tx)} {
		for name, call := range m {
			calls[name] = call
		}
	}
	return calls
}

// rawCall is a call through solana-go's generic entry point, for methods
// it has no typed call for (or none that asks withContext).
func rawCall(method string, params ...any) func(ctx context.Context, c *rpc.Client) (uint64, error) {
	return func(ctx context.Context, c *rpc.Client) (uint64, error) {
		var out rpc.RPCContext
		err := c.RPCCallForInto(ctx, &out, method, params)
		return out.Context.Slot, err
	}
}

// accountCalls are rpcResponseCalls' entries for accounts and tokens.
func accountCalls() map[string]rpcResponseCall {
	pk, conf := somePubkey, rpc.CommitmentConfirmed
	tokenAmount := `{"amount":"1","decimals":0,"uiAmount":1,"uiAmountString":"1"}`
	return map[string]rpcResponseCall{
		"getBalance": {`5`, func(ctx context.Context, c *rpc.Client) (uint64, error) {
			out, err := c.GetBalance(ctx, pk, conf)
			return resultSlot(out, err, func() rpc.Context { return out.Context })
		}},
		"getAccountInfo": {`{"data":["","base64"],"executable":false,"lamports":1,"owner":"11111111111111111111111111111111","rentEpoch":0,"space":0}`,
			func(ctx context.Context, c *rpc.Client) (uint64, error) {
				out, err := c.GetAccountInfoWithOpts(ctx, pk, &rpc.GetAccountInfoOpts{Commitment: conf})
				return resultSlot(out, err, func() rpc.Context { return out.Context })
			}},
		"getMultipleAccounts": {`[null]`, func(ctx context.Context, c *rpc.Client) (uint64, error) {
			out, err := c.GetMultipleAccountsWithOpts(ctx, []solana.PublicKey{pk}, &rpc.GetMultipleAccountsOpts{Commitment: conf})
			return resultSlot(out, err, func() rpc.Context { return out.Context })
		}},
		"getTokenAccountBalance": {tokenAmount, func(ctx context.Context, c *rpc.Client) (uint64, error) {
			out, err := c.GetTokenAccountBalance(ctx, pk, conf)
			return resultSlot(out, err, func() rpc.Context { return out.Context })
		}},
		"getTokenSupply": {tokenAmount, func(ctx context.Context, c *rpc.Client) (uint64, error) {
			out, err := c.GetTokenSupply(ctx, pk, conf)
			return resultSlot(out, err, func() rpc.Context { return out.Context })
		}},
		"getProgramAccounts": {`[]`, rawCall("getProgramAccounts", pk.String(), rpc.M{"withContext": true, "encoding": "base64", "commitment": conf})},
		"getLargestAccounts": {`[]`, func(ctx context.Context, c *rpc.Client) (uint64, error) {
			out, err := c.GetLargestAccounts(ctx, conf, "")
			return resultSlot(out, err, func() rpc.Context { return out.Context })
		}},
		"getSupply": {`{"total":1,"circulating":1,"nonCirculating":0,"nonCirculatingAccounts":[]}`, func(ctx context.Context, c *rpc.Client) (uint64, error) {
			out, err := c.GetSupply(ctx, conf)
			return resultSlot(out, err, func() rpc.Context { return out.Context })
		}},
		"getTokenLargestAccounts": {`[]`, func(ctx context.Context, c *rpc.Client) (uint64, error) {
			out, err := c.GetTokenLargestAccounts(ctx, pk, conf)
			return resultSlot(out, err, func() rpc.Context { return out.Context })
		}},
		"getTokenAccountsByOwner": {`[]`, func(ctx context.Context, c *rpc.Client) (uint64, error) {
			out, err := c.GetTokenAccountsByOwner(ctx, pk, &rpc.GetTokenAccountsConfig{Mint: &pk}, &rpc.GetTokenAccountsOpts{Commitment: conf})
			return resultSlot(out, err, func() rpc.Context { return out.Context })
		}},
		"getTokenAccountsByDelegate": {`[]`, func(ctx context.Context, c *rpc.Client) (uint64, error) {
			out, err := c.GetTokenAccountsByDelegate(ctx, pk, &rpc.GetTokenAccountsConfig{Mint: &pk}, &rpc.GetTokenAccountsOpts{Commitment: conf})
			return resultSlot(out, err, func() rpc.Context { return out.Context })
		}},
	}
}

// bankCalls are rpcResponseCalls' entries for the rest: blockhashes, fees,
// statuses, simulation, block production.
func bankCalls(tx *solana.Transaction) map[string]rpcResponseCall {
	hash, conf := solana.MustHashFromBase58(anyHash), rpc.CommitmentConfirmed
	return map[string]rpcResponseCall{
		"getBlockProduction": {`{"byIdentity":{},"range":{"firstSlot":0,"lastSlot":1}}`, func(ctx context.Context, c *rpc.Client) (uint64, error) {
			out, err := c.GetBlockProductionWithOpts(ctx, &rpc.GetBlockProductionOpts{Commitment: conf})
			return resultSlot(out, err, func() rpc.Context { return out.Context })
		}},
		"getSignatureStatuses": {`[null]`, func(ctx context.Context, c *rpc.Client) (uint64, error) {
			out, err := c.GetSignatureStatuses(ctx, true, tx.Signatures[0])
			return resultSlot(out, err, func() rpc.Context { return out.Context })
		}},
		"simulateTransaction": {`{"err":null,"logs":[]}`, func(ctx context.Context, c *rpc.Client) (uint64, error) {
			out, err := c.SimulateTransactionWithOpts(ctx, tx, &rpc.SimulateTransactionOpts{Commitment: conf})
			return resultSlot(out, err, func() rpc.Context { return out.Context })
		}},
		"getLatestBlockhash": {`{"blockhash":"` + anyHash + `","lastValidBlockHeight":1}`, func(ctx context.Context, c *rpc.Client) (uint64, error) {
			out, err := c.GetLatestBlockhash(ctx, conf)
			return resultSlot(out, err, func() rpc.Context { return out.Context })
		}},
		"isBlockhashValid": {`true`, func(ctx context.Context, c *rpc.Client) (uint64, error) {
			out, err := c.IsBlockhashValid(ctx, hash, conf)
			return resultSlot(out, err, func() rpc.Context { return out.Context })
		}},
		"getFeeForMessage": {`5000`, func(ctx context.Context, c *rpc.Client) (uint64, error) {
			out, err := c.GetFeeForMessage(ctx, "AQABAg==", conf)
			return resultSlot(out, err, func() rpc.Context { return out.Context })
		}},
		"getStakeMinimumDelegation": {`1`, rawCall("getStakeMinimumDelegation", rpc.M{"commitment": conf})},
	}
}

// deprecatedCalls are rpcResponseCalls' entries for the methods agave
// removed and solana-go still calls.
func deprecatedCalls() map[string]rpcResponseCall {
	conf, hash := rpc.CommitmentConfirmed, solana.MustHashFromBase58(anyHash)
	feeCalc := `{"lamportsPerSignature":5000}`
	return map[string]rpcResponseCall{
		"getRecentBlockhash": {`{"blockhash":"` + anyHash + `","feeCalculator":` + feeCalc + `}`, func(ctx context.Context, c *rpc.Client) (uint64, error) {
			out, err := c.GetRecentBlockhash(ctx, conf)
			return resultSlot(out, err, func() rpc.Context { return out.Context })
		}},
		"getFees": {`{"blockhash":"` + anyHash + `","feeCalculator":` + feeCalc + `,"lastValidSlot":1,"lastValidBlockHeight":1}`, func(ctx context.Context, c *rpc.Client) (uint64, error) {
			out, err := c.GetFees(ctx, conf)
			return resultSlot(out, err, func() rpc.Context { return out.Context })
		}},
		"getFeeCalculatorForBlockhash": {`{"feeCalculator":` + feeCalc + `}`, func(ctx context.Context, c *rpc.Client) (uint64, error) {
			out, err := c.GetFeeCalculatorForBlockhash(ctx, hash, conf)
			return resultSlot(out, err, func() rpc.Context { return out.Context })
		}},
		"getFeeRateGovernor": {`{"feeRateGovernor":{"burnPercent":50}}`, func(ctx context.Context, c *rpc.Client) (uint64, error) {
			out, err := c.GetFeeRateGovernor(ctx)
			return resultSlot(out, err, func() rpc.Context { return out.Context })
		}},
	}
}

// resultSlot returns the context slot of out (by ctx, read only when out
// is not nil) or err.
func resultSlot[T any](out *T, err error, ctx func() rpc.Context) (uint64, error) {
	if err != nil || out == nil {
		return 0, err
	}
	return ctx().Slot, nil
}

// TestEveryRpcResponseIsTracked: for each listed method, a (tier 0)
// answers at slot 2000, then at 1000; b (tier 1) at 2000. Through
// solana-go's client, the second call must not return 1000: a's answer is
// refused and b's returned.
func TestEveryRpcResponseIsTracked(t *testing.T) {
	calls := rpcResponseCalls(t)
	for _, method := range rpcResponseList(t) {
		call, ok := calls[method]
		if !ok {
			t.Errorf("%s: listed, and no call walks it", method)
			continue
		}
		answer := func(slot string) string {
			return rpcResult(`{"context":{"apiVersion":"2.2.14","slot":` + slot + `},"value":` + call.value + `}`)
		}
		a := newScripted(t, func(_ string, n int) string {
			if n == 1 {
				return answer("2000")
			}
			return answer("1000")
		})
		b := newScripted(t, func(string, int) string { return answer("2000") })
		c := newClient(t, scriptedPool(t, a, b), conf{})
		sc := rpc.NewWithCustomRPCClient(c)
		first, err := call.call(guardCtx(t), sc)
		if err != nil || first != 2000 {
			t.Errorf("%s: first call: slot %d, %v", method, first, err)
		}
		second, err := call.call(guardCtx(t), sc)
		if second < 2000 {
			t.Errorf("%s: returned slot %d after 2000 (err %v)", method, second, err)
		}
		if err != nil || b.requests(method) != 1 {
			t.Errorf("%s: err %v, b asked %d times; want a's stale answer refused and b's returned", method, err, b.requests(method))
		}
		_ = c.Close()
	}
}
