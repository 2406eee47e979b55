package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// balanceAccount is the account every getBalance asks about (the system
// program; the fake endpoint answers a recorded balance for any account).
const balanceAccount = "11111111111111111111111111111111"

// rawClient posts prebuilt JSON-RPC bytes with net/http and decodes the
// answer with encoding/json, without retry. With one URL it is the floor
// of the comparison; with several it rotates over them (naive round
// robin).
type rawClient struct {
	hc   *http.Client
	urls []string
	next atomic.Uint64
	id   atomic.Uint64
}

func newRawClient(urls []string, callers int) *rawClient {
	tr := &http.Transport{
		MaxIdleConns:        0,
		MaxIdleConnsPerHost: callers,
		IdleConnTimeout:     90 * time.Second,
	}
	return &rawClient{hc: &http.Client{Transport: tr}, urls: urls}
}

func (c *rawClient) close() { c.hc.CloseIdleConnections() }

// rpcFailure is a JSON-RPC error or a non-2xx status.
type rpcFailure struct {
	status int
	code   int
}

func (e *rpcFailure) Error() string {
	if e.code != 0 {
		return "bench: JSON-RPC error " + strconv.Itoa(e.code)
	}
	return "bench: HTTP " + strconv.Itoa(e.status)
}

type balanceResult struct {
	Context struct {
		Slot uint64 `json:"slot"`
	} `json:"context"`
	Value uint64 `json:"value"`
}

func (c *rawClient) getBalance(ctx context.Context) (uint64, error) {
	body := make([]byte, 0, 160)
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = strconv.AppendUint(body, c.id.Add(1), 10)
	body = append(body, `,"method":"getBalance","params":["`+balanceAccount+`",{"commitment":"`+benchCommitment+`"}]}`...)
	var out balanceResult
	if err := c.post(ctx, body, &out); err != nil {
		return 0, err
	}
	return out.Context.Slot, nil
}

func (c *rawClient) sendTransaction(ctx context.Context, tx string) error {
	body := make([]byte, 0, 96+len(tx))
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = strconv.AppendUint(body, c.id.Add(1), 10)
	body = append(body, `,"method":"sendTransaction","params":["`...)
	body = append(body, tx...)
	body = append(body, `",{"encoding":"base64"}]}`...)
	var sig string
	return c.post(ctx, body, &sig)
}

// post sends body to the next URL and decodes the result into out.
func (c *rawClient) post(ctx context.Context, body []byte, out any) error {
	url := c.urls[0]
	if len(c.urls) > 1 {
		url = c.urls[c.next.Add(1)%uint64(len(c.urls))]
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("bench: build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return &rpcFailure{status: resp.StatusCode}
	}
	env := struct {
		Result any `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}{Result: out}
	if err := json.Unmarshal(data, &env); err != nil {
		return err
	}
	if env.Error != nil {
		return &rpcFailure{status: resp.StatusCode, code: env.Error.Code}
	}
	return nil
}
