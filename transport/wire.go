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

// directEnvelope is envelope with the result decoded in the same pass:
// Result holds the caller's non-nil pointer out, and encoding/json's
// indirect descends from the interface into out for any non-null value,
// then decodes as json.Unmarshal(raw, out) would. A null would instead set
// the interface to nil and never reach out, hence directResult. Result is
// nil whenever parseDirect is not running.
type directEnvelope struct {
	ID     json.RawMessage `json:"id"`
	Result any             `json:"result"`
	Error  *wireError      `json:"error"`
}

// responseBuffer is the pooled scratch of one attempt: the body and the
// decoded envelope.
type responseBuffer struct {
	body   []byte
	env    envelope
	direct directEnvelope
	id     []byte // the request id as JSON
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
	if cap(b.body) > maxPooledBuffer || cap(b.env.Result) > maxPooledBuffer ||
		cap(b.env.ID) > maxPooledBuffer || cap(b.direct.ID) > maxPooledBuffer {
		return
	}
	b.env.Error = nil
	b.direct.Result = nil // never keep the caller's out in the pool
	b.direct.Error = nil
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

// parseDirect decodes body into b.direct with its result going straight
// into out (a non-nil pointer) in one json.Unmarshal, then checks the id as
// parseEnvelope does. It is only called when directResult(body) holds, so
// the result is present, not null, and there is no error object. fallback
// is true when the Unmarshal failed (a malformed body, or a result that does
// not decode): parseEnvelope must classify body. out may hold part of the
// result whenever err != nil or fallback is true.
func parseDirect(b *responseBuffer, body []byte, out any) (fallback bool, err error) {
	b.direct.ID = b.direct.ID[:0]
	b.direct.Result = out
	b.direct.Error = nil
	err = json.Unmarshal(body, &b.direct)
	b.direct.Result = nil
	if err != nil || b.direct.Error != nil {
		return true, nil
	}
	if !bytes.Equal(b.direct.ID, b.id) {
		return false, errWrongID
	}
	return false, nil
}

// directResult reports whether body, if it is valid JSON, is an object
// whose result parseDirect decodes exactly as parseEnvelope followed by
// json.Unmarshal(result, out) would: every top-level key is plain ASCII
// (no escape, so encoding/json's case-insensitive match is an ASCII one),
// exactly one key matches "result" and its value is not null (a null
// through an interface is not a null into out), and none matches "error".
// It reads body without validating it; an invalid body makes
// json.Unmarshal fail before it writes anything.
func directResult(body []byte) bool {
	i := skipSpace(body, 0)
	if i == len(body) || body[i] != '{' {
		return false
	}
	results := 0
	for i = skipSpace(body, i+1); i < len(body) && body[i] == '"'; {
		j := i + 1
		for j < len(body) && body[j] != '"' {
			if c := body[j]; c == '\\' || c >= 0x80 {
				return false
			}
			j++
		}
		key := body[i+1 : min(j, len(body))]
		i = skipSpace(body, j+1)
		if i >= len(body) || body[i] != ':' {
			return false
		}
		i = skipSpace(body, i+1)
		if i == len(body) {
			return false
		}
		switch {
		case len(key) == len("result") && bytes.EqualFold(key, []byte("result")):
			if body[i] == 'n' {
				return false
			}
			results++
		case len(key) == len("error") && bytes.EqualFold(key, []byte("error")):
			return false
		}
		if i = skipSpace(body, skipValue(body, i)); i == len(body) {
			return false
		}
		if body[i] == '}' {
			return results == 1
		}
		if body[i] != ',' {
			return false
		}
		i = skipSpace(body, i+1)
	}
	return false // an empty object, or not an object of keys
}

// skipSpace returns the index of the first non-space byte of body at or
// after i, or len(body).
func skipSpace(body []byte, i int) int {
	for i < len(body) {
		switch body[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return len(body)
}

// skipValue returns the index just past the JSON value starting at
// body[i] (a valid value; anything else ends somewhere not past len(body)).
func skipValue(body []byte, i int) int {
	if i < len(body) {
		switch body[i] {
		case '"':
			return skipString(body, i+1)
		case '{', '[':
		default: // a number or literal: it ends at the next delimiter
			for i < len(body) && !delimiter(body[i]) {
				i++
			}
			return i
		}
	}
	depth := 0
	for i < len(body) {
		switch body[i] {
		case '"':
			i = skipString(body, i+1)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
		i++
		for i < len(body) && !structural(body[i]) {
			i++
		}
	}
	return len(body)
}

// structural reports whether skipValue stops at c inside an object or
// array.
func structural(c byte) bool { return c == '"' || c == '{' || c == '}' || c == '[' || c == ']' }

// delimiter reports whether c ends a number or literal.
func delimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// skipString returns the index just past the closing quote of the string
// whose contents start at body[i], or len(body).
func skipString(body []byte, i int) int {
	for {
		k := bytes.IndexByte(body[i:], '"')
		if k < 0 {
			return len(body)
		}
		i += k
		n := 0 // backslashes before the quote: an odd count escapes it
		for n < i && body[i-1-n] == '\\' {
			n++
		}
		i++
		if n%2 == 0 {
			return i
		}
	}
}

// appendID appends the JSON form of a request id.
func appendID(dst []byte, id uint64) []byte { return strconv.AppendUint(dst[:0], id, 10) }
