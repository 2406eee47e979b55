package transport

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
)

// wireRequest is one JSON-RPC 2.0 request object.
type wireRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      uint64 `json:"id"`
	Method  string `json:"method"`
	Params  []any  `json:"params,omitempty"`
}

// encodeRequest marshals one request with a numeric id.
func encodeRequest(id uint64, method string, params []any) ([]byte, error) {
	return json.Marshal(wireRequest{JSONRPC: "2.0", ID: id, Method: method, Params: params})
}

// wireError is a JSON-RPC error object.
type wireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// envelope is one JSON-RPC response object. Its RawMessage fields keep
// their capacity between uses (RawMessage.UnmarshalJSON appends to the
// existing slice), so a pooled envelope decodes without allocating.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *wireError      `json:"error"`
}

// responseBuffer is the pooled scratch of one attempt: the body and the
// decoded envelope.
type responseBuffer struct {
	body []byte
	env  envelope
	id   []byte // the request id as JSON
}

// maxPooledBuffer is the largest body buffer kept for reuse; a rare huge
// response must not pin its memory.
const maxPooledBuffer = 1 << 20

func (c *Client) getBuffer() *responseBuffer {
	if b, ok := c.buffers.Get().(*responseBuffer); ok {
		return b
	}
	return &responseBuffer{}
}

func (c *Client) putBuffer(b *responseBuffer) {
	if cap(b.body) > maxPooledBuffer || cap(b.env.Result) > maxPooledBuffer {
		return
	}
	b.env.Error = nil
	c.buffers.Put(b)
}

// readLimited reads r to EOF into dst[:0], never holding more than limit+1
// bytes: it reads through io.LimitReader(r, limit+1) and reports
// errTooLarge as soon as the extra byte arrives. sizeHint (a
// Content-Length, or -1) pre-sizes dst when it fits the limit.
func readLimited(dst []byte, r io.Reader, limit, sizeHint int64) ([]byte, error) {
	dst = dst[:0]
	if sizeHint > limit {
		return dst, errTooLarge
	}
	if sizeHint >= 0 && int64(cap(dst)) < sizeHint+1 {
		dst = make([]byte, 0, sizeHint+1) // +1 so the EOF read needs no growth
	}
	lr := io.LimitedReader{R: r, N: limit + 1}
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := lr.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if int64(len(dst)) > limit {
			return dst, errTooLarge
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

// parseEnvelope decodes body into b.env and checks it is a response to the
// request whose id is b.id: an object with a matching id and exactly a
// result or an error (an error may carry a null id, as servers answer when
// they could not read the request's id).
func parseEnvelope(b *responseBuffer, body []byte) error {
	b.env.ID = b.env.ID[:0]
	b.env.Result = b.env.Result[:0]
	b.env.Error = nil
	if err := json.Unmarshal(body, &b.env); err != nil {
		return errNotJSONRPC
	}
	if b.env.Error != nil {
		if len(b.env.ID) != 0 && !bytes.Equal(b.env.ID, b.id) && string(b.env.ID) != "null" {
			return errWrongID
		}
		return nil
	}
	if len(b.env.Result) == 0 {
		return errNoResultOrError
	}
	if !bytes.Equal(b.env.ID, b.id) {
		return errWrongID
	}
	return nil
}

// appendID appends the JSON form of a request id.
func appendID(dst []byte, id uint64) []byte { return strconv.AppendUint(dst[:0], id, 10) }
