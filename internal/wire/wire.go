// Package wire is the JSON-RPC 2.0 wire format as the transport speaks it:
// encoding one request, reading a response body under a size limit, and
// checking a response's members once without decoding them (Scan), and
// decoding its envelope, in two passes (envelope, then result) or, when
// the body allows it, in one (ParseDirect). It knows nothing of
// endpoints, causes or retries: the transport classifies what it returns.
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
)

// Failures of a response the wire format detects. Their text is fixed and
// secret-free.
var (
	// ErrTooLarge: the body is longer than the limit.
	ErrTooLarge = errors.New("response larger than the limit")
	// ErrNotJSONRPC: the body is not a JSON-RPC response object.
	ErrNotJSONRPC = errors.New("response is not a JSON-RPC response")
	// ErrWrongID: the response's id is not the request's.
	ErrWrongID = errors.New("response id does not match the request")
	// ErrNoResultOrError: the response has neither member.
	ErrNoResultOrError = errors.New("response has neither result nor error")
)

// Error is a JSON-RPC error object.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// Envelope is one JSON-RPC response object. Its RawMessage fields keep
// their capacity between uses (RawMessage.UnmarshalJSON appends to the
// existing slice), so a pooled Envelope decodes without allocating.
type Envelope struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
}

// directEnvelope is Envelope with the result decoded in the same pass:
// Result holds the caller's non-nil pointer out, and encoding/json's
// indirect descends from the interface into out for any non-null value,
// then decodes as json.Unmarshal(raw, out) would. A null would instead set
// the interface to nil and never reach out, hence Shape.Direct. Result is
// nil whenever ParseDirect is not running.
type directEnvelope struct {
	ID     json.RawMessage `json:"id"`
	Result any             `json:"result"`
	Error  *Error          `json:"error"`
}

// Buffer is the pooled scratch of one attempt: the body and the
// decoded Envelope.
type Buffer struct {
	// Body is the response body read into it (ReadLimited).
	Body []byte
	// Env is the envelope ParseEnvelope decoded.
	Env    Envelope
	direct directEnvelope
	// ID is the request's id as JSON (AppendID).
	ID []byte
}

// maxPooledBuffer is the largest body buffer kept for reuse; a rare huge
// response must not pin its memory.
const maxPooledBuffer = 1 << 20

// Buffers reuses Buffers between attempts. The zero value is ready.
type Buffers struct{ pool sync.Pool }

// Get returns a Buffer, reused or new.
func (p *Buffers) Get() *Buffer {
	if b, ok := p.pool.Get().(*Buffer); ok {
		return b
	}
	return &Buffer{}
}

// Put keeps b for reuse unless it grew past maxPooledBuffer; it never
// keeps a caller's out or an error object.
func (p *Buffers) Put(b *Buffer) {
	if cap(b.Body) > maxPooledBuffer || cap(b.Env.Result) > maxPooledBuffer ||
		cap(b.Env.ID) > maxPooledBuffer || cap(b.direct.ID) > maxPooledBuffer {
		return
	}
	b.Env.Error = nil
	b.direct.Result = nil // never keep the caller's out in the pool
	b.direct.Error = nil
	p.pool.Put(b)
}

// ReadLimited reads r to EOF into dst[:0], never holding more than limit+1
// bytes: it reads through io.LimitReader(r, limit+1) and reports
// ErrTooLarge as soon as the extra byte arrives. sizeHint (a
// Content-Length, or -1) pre-sizes dst when it fits the limit.
func ReadLimited(dst []byte, r io.Reader, limit, sizeHint int64) ([]byte, error) {
	dst = dst[:0]
	if sizeHint > limit {
		return dst, ErrTooLarge
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
			return dst, ErrTooLarge
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

// ParseEnvelope checks body with Scan, then decodes it into b.Env
// (ParseScanned).
func ParseEnvelope(b *Buffer, body []byte) error {
	if _, err := Scan(body, false); err != nil {
		return err
	}
	return ParseScanned(b, body)
}

// ParseScanned decodes body, which Scan accepted, into b.Env and checks it
// is a response to the request whose id is b.ID: an object with a matching
// id and a result or an error (an error may carry a null id, as servers
// answer when they could not read the request's id; a null member counts
// as absent beside the other, as Scan says).
func ParseScanned(b *Buffer, body []byte) error {
	b.Env.ID = b.Env.ID[:0]
	b.Env.Result = b.Env.Result[:0]
	b.Env.Error = nil
	if err := json.Unmarshal(body, &b.Env); err != nil {
		return ErrNotJSONRPC
	}
	if b.Env.Error != nil {
		if len(b.Env.ID) != 0 && !bytes.Equal(b.Env.ID, b.ID) && string(b.Env.ID) != "null" {
			return ErrWrongID
		}
		return nil
	}
	if len(b.Env.Result) == 0 {
		return ErrNoResultOrError
	}
	if !bytes.Equal(b.Env.ID, b.ID) {
		return ErrWrongID
	}
	return nil
}

// Target is implemented by a decode target that wraps the value a result
// decodes into, to check what only a fallback can meet (the root's typed
// calls refuse a null result in their UnmarshalJSON). ParseDirect, which
// only sees a result that is present and not null, decodes straight into
// Target(): one pass over the body, where the wrapper's UnmarshalJSON would
// be a second json.Unmarshal of the result.
type Target interface{ Target() any }

// ParseDirect decodes body into b.direct with its result going straight
// into out (a non-nil pointer) in one json.Unmarshal, then checks the id as
// ParseScanned does. It is only called when Scan's Shape.Direct holds, so
// the result is present, not null, and there is no error member. fallback
// is true when the Unmarshal failed (a malformed body, or a result that does
// not decode): ParseScanned must classify body. out may hold part of the
// result whenever err != nil or fallback is true.
func ParseDirect(b *Buffer, body []byte, out any) (fallback bool, err error) {
	if t, ok := out.(Target); ok {
		out = t.Target()
	}
	b.direct.ID = b.direct.ID[:0]
	b.direct.Result = out
	b.direct.Error = nil
	err = json.Unmarshal(body, &b.direct)
	b.direct.Result = nil
	if err != nil || b.direct.Error != nil {
		return true, nil
	}
	if !bytes.Equal(b.direct.ID, b.ID) {
		return false, ErrWrongID
	}
	return false, nil
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

// AppendID appends the JSON form of a request id.
func AppendID(dst []byte, id uint64) []byte { return strconv.AppendUint(dst[:0], id, 10) }
