// Package balancefloor is the floor issue 22's ratios are measured against
// (plans/015-call-cost.md): one loopback server answering getBalance, and
// the same request made with net/http alone, decoded into the same
// solana-go type. The engine's and the metrics' benchmarks and the root's
// allocation test all measure against it, so their ratios share one floor.
package balancefloor

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// Lamports is the balance Handler answers.
const Lamports = 2039280

// Handler answers every request with one getBalance result of Lamports and
// the request's id, as a node would.
func Handler(w http.ResponseWriter, r *http.Request) {
	var req struct{ ID json.RawMessage }
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","result":{"context":{"apiVersion":"2.2.14","slot":345678901},"value":2039280},"id":`)
	b.Write(req.ID)
	b.WriteByte('}')
	_, _ = w.Write(b.Bytes())
}

// Request is the body of a getBalance of key, encoded once: the floor
// does not pay the encoding a client pays per call.
func Request(key solana.PublicKey) []byte {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "getBalance", "params": []any{key.String()}})
	return body
}

// Raw returns a getBalance of key through client alone: the request
// encoded once, the answer read and decoded into rpc.GetBalanceResult.
func Raw(client *http.Client, url string, key solana.PublicKey) func(ctx context.Context) (uint64, error) {
	body := Request(key)
	return func(ctx context.Context) (uint64, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		return Decode(resp)
	}
}

// Decode reads a getBalance response's value, and closes its body.
func Decode(resp *http.Response) (uint64, error) {
	defer resp.Body.Close()
	var env struct {
		Result rpc.GetBalanceResult `json:"result"`
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return 0, err
	}
	return env.Result.Value, nil
}
