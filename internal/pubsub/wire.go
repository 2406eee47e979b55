package pubsub

import (
	"encoding/json"
	"strconv"
)

// inbound is one frame from an endpoint: a response (id, then result or
// error) or a notification (method, params.subscription, params.result).
type inbound struct {
	ID     *uint64         `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Method string `json:"method"`
	Params *struct {
		Subscription uint64          `json:"subscription"`
		Result       json.RawMessage `json:"result"`
	} `json:"params"`
}

// request encodes one JSON-RPC request; params is a JSON array or nil.
func request(id uint64, method string, params json.RawMessage) []byte {
	b := []byte(`{"jsonrpc":"2.0","id":`)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, `,"method":`...)
	b = strconv.AppendQuote(b, method)
	if len(params) > 0 {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

// unsubscribeParams is [id].
func unsubscribeParams(id uint64) json.RawMessage {
	return json.RawMessage("[" + strconv.FormatUint(id, 10) + "]")
}
