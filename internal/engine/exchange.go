package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/solroute/solroute/internal/retry"
	"github.com/solroute/solroute/internal/slots"
	"github.com/solroute/solroute/internal/wire"
	"github.com/solroute/solroute/transport"

	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/solroute/solroute/retrypolicy"
)

// intoExchange decodes a single response's result into out.
type intoExchange struct {
	id  uint64
	out any
	// slots, when not nil, is the call's slot plan (read-only).
	slots *slots.Plan
}

func (x *intoExchange) handle(c *Engine, _ *http.Request, resp *http.Response) (retrypolicy.Cause, int, uint64, error) {
	b := c.buffers.Get()
	defer c.buffers.Put(b)
	body, err := wire.ReadLimited(b.Body, resp.Body, c.maxBody, resp.ContentLength)
	b.Body = body
	if err != nil {
		if errors.Is(err, wire.ErrTooLarge) {
			return retrypolicy.MalformedResponse, 0, 0, err
		}
		return 0, 0, 0, err
	}
	return x.judge(b, body)
}

// judge reads one response body: its members once (wire.Scan), which
// refuses an answer whose members are ambiguous (a result beside an error,
// a repeated or case-variant key), then, for a call that tracks slots, its
// slot against the plan, before anything is decoded into out: a stale
// answer never reaches it. The slot Scan reports is the one the decode
// puts into out, since no key it reads can mean two things.
func (x *intoExchange) judge(b *wire.Buffer, body []byte) (retrypolicy.Cause, int, uint64, error) {
	sh, err := wire.Scan(body, x.slots != nil)
	if err != nil {
		return retrypolicy.MalformedResponse, 0, 0, err
	}
	if x.slots == nil {
		cause, code, err := x.decode(b, body, sh)
		return cause, code, 0, err
	}
	slot, ok := sh.Slot, sh.HasSlot
	if x.slots.Traits.Result {
		slot, ok = sh.Value, sh.HasValue
	} else if x.slots.Traits.Context && sh.Object && !ok {
		// An RpcResponse without a slot cannot be shown to be fresh, and
		// would hand the caller slot 0.
		return retrypolicy.MalformedResponse, 0, 0, wire.ErrNoContextSlot
	}
	if ok {
		if err := x.slots.Judge(slot); err != nil { // stale, or an outlier
			return retrypolicy.NodeBehind, 0, slot, err
		}
	}
	cause, code, err := x.decode(b, body, sh)
	if code == codeMinContextSlotNotReached {
		if e, isRPC := err.(*transport.RPCError); isRPC {
			slot, _ = wire.ErrorContextSlot(e.Data)
		}
	}
	return cause, code, slot, err
}

// codeMinContextSlotNotReached is agave's -32016: the node's bank at the
// requested commitment is below the minContextSlot asked for; its data
// carries the bank's slot.
const codeMinContextSlotNotReached = -32016

// decode checks body, which wire.Scan read into sh, is the response to x.id
// and decodes its result into out, with the outcome and the out of
// wire.ParseScanned followed by json.Unmarshal(result, out).
//
// When sh.Direct allows it and *out is its zero value, the envelope and
// the result are decoded in one json.Unmarshal (wire.ParseDirect). That decode
// writes into out before the id is checked: if the attempt then fails (a
// wrong id, or an Unmarshal error), *out is reset to its zero value, what
// it held before, so that neither the caller nor a retry into the same out
// sees a rejected answer (encoding/json merges into what out holds). An
// Unmarshal error then goes the two-pass way to be classified as before.
func (x *intoExchange) decode(b *wire.Buffer, body []byte, sh wire.Shape) (retrypolicy.Cause, int, error) {
	x = x.share(body) // the leader of a coalesced read keeps body's result for its followers (coalesce.go)
	b.ID = wire.AppendID(b.ID, x.id)
	if x.out != nil && sh.Direct {
		if out := reflect.ValueOf(x.out); out.Kind() == reflect.Pointer && !out.IsNil() && out.Elem().IsZero() {
			fallback, err := wire.ParseDirect(b, body, x.out)
			if !fallback && err == nil {
				return 0, 0, nil
			}
			out.Elem().SetZero()
			if !fallback {
				return retrypolicy.MalformedResponse, 0, err
			}
		}
	}
	return decodeScanned(b, body, x.out)
}

// decodeScanned checks body, which wire.Scan accepted, is the response to
// the request whose id is b.ID (wire.ParseScanned), then decodes its
// result into out (nil: none).
func decodeScanned(b *wire.Buffer, body []byte, out any) (retrypolicy.Cause, int, error) {
	if err := wire.ParseScanned(b, body); err != nil {
		return retrypolicy.MalformedResponse, 0, err
	}
	if e := b.Env.Error; e != nil {
		rpcErr := &transport.RPCError{Code: e.Code, Message: e.Message}
		if len(e.Data) != 0 {
			rpcErr.Data = bytes.Clone(e.Data)
		}
		return retry.RPCCodeCause(e.Code), e.Code, rpcErr
	}
	if out == nil {
		return 0, 0, nil
	}
	if err := json.Unmarshal(b.Env.Result, out); err != nil {
		return retrypolicy.InvalidResponse, 0, &decodeError{err: err}
	}
	return 0, 0, nil
}

// decodeError is a result that did not decode into the caller's type.
type decodeError struct{ err error }

func (e *decodeError) Error() string { return "result does not decode: " + e.err.Error() }
func (e *decodeError) Unwrap() error { return e.err }

// callbackExchange hands a 2xx response to the caller's callback, with the
// body bounded by the response limit.
type callbackExchange struct {
	callback func(*http.Request, *http.Response) error
	// id is the request's JSON-RPC id, which an endpoint's refusal
	// answers (endpointRefusal).
	id uint64
}

func (x *callbackExchange) handle(c *Engine, req *http.Request, resp *http.Response) (retrypolicy.Cause, int, uint64, error) {
	cause, code, err := x.call(c, req, resp)
	return cause, code, 0, err
}

// refusalPeek is how much of a callback's 2xx body is read before the
// callback runs, to find an endpoint's JSON-RPC refusal: an error object
// is small, and a larger body still streams to the callback.
const refusalPeek = 16 << 10

// call runs the callback over resp with its body bounded. A body that is
// a whole JSON-RPC error the endpoint is to blame for (a rate limit, a
// node behind, the node's own failure: not the request's) never reaches
// it: the attempt fails with that error, as a CallForInto's does, and the
// endpoint cools down or fails over by the same rules. Any other answer,
// an error that is the request's own included, is the callback's to read.
func (x *callbackExchange) call(c *Engine, req *http.Request, resp *http.Response) (retrypolicy.Cause, int, error) {
	lb := &limitedBody{r: resp.Body, n: c.maxBody}
	head := make([]byte, 0, min(refusalPeek, max(resp.ContentLength, 512)))
	head, complete := peekBody(lb, head, refusalPeek)
	if lb.tooLarge {
		return retrypolicy.MalformedResponse, 0, wire.ErrTooLarge
	}
	if lb.readErr != nil {
		return 0, 0, lb.readErr // a transport read error: the attempt classifies it
	}
	if complete {
		if cause, code, err := endpointRefusal(head, x.id); cause != 0 {
			return cause, code, err
		}
	}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), lb), lb}
	err := x.callback(req, resp)
	if err == nil {
		return 0, 0, nil
	}
	if lb.tooLarge {
		return retrypolicy.MalformedResponse, 0, wire.ErrTooLarge
	}
	if lb.readErr != nil {
		return 0, 0, lb.readErr // a transport read error: the attempt classifies it
	}
	// The callback judged a complete answer: another endpoint would answer
	// the same.
	return retrypolicy.InvalidResponse, 0, err
}

// peekBody reads r into buf until EOF or limit bytes, and reports whether
// it reached EOF (the whole body is in buf).
func peekBody(r io.Reader, buf []byte, limit int) ([]byte, bool) {
	for len(buf) < limit {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(cap(buf), limit-len(buf)))
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), limit)])
		buf = buf[:len(buf)+n]
		if err != nil {
			return buf, err == io.EOF
		}
	}
	return buf, false
}

// endpointRefusal reads body as one JSON-RPC answer to request id: when it is an error
// whose cause is not the request's own (retry.RPCCodeCause: not
// RPCApplication), it returns that cause, the code and the error; else a
// zero cause (a result, the request's error, or not JSON-RPC at all: the
// callback's to judge).
func endpointRefusal(body []byte, id uint64) (retrypolicy.Cause, int, error) {
	b := &wire.Buffer{}
	b.ID = wire.AppendID(b.ID, id)
	if wire.ParseEnvelope(b, body) != nil || b.Env.Error == nil {
		return 0, 0, nil
	}
	e := b.Env.Error
	cause := retry.RPCCodeCause(e.Code)
	if cause == retrypolicy.RPCApplication {
		return 0, 0, nil
	}
	return cause, e.Code, &transport.RPCError{Code: e.Code, Message: e.Message, Data: bytes.Clone(e.Data)}
}

// limitedBody fails a read past n bytes and remembers why reads failed.
type limitedBody struct {
	r        io.ReadCloser
	n        int64
	tooLarge bool
	readErr  error
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.n < 0 {
		return 0, wire.ErrTooLarge
	}
	if int64(len(p)) > l.n+1 {
		p = p[:l.n+1]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	if l.n < 0 {
		l.tooLarge = true
		return n, wire.ErrTooLarge
	}
	if err != nil && err != io.EOF {
		l.readErr = err
	}
	return n, err
}

func (l *limitedBody) Close() error { return l.r.Close() }

// batchExchange decodes a batch response into out.
type batchExchange struct {
	n   int
	out jsonrpc.RPCResponses
	// limited: some members, not all, were refused with a rate limit
	// (the role cools down all the same: attempt's throttled).
	limited bool
}

func (x *batchExchange) handle(c *Engine, req *http.Request, resp *http.Response) (retrypolicy.Cause, int, uint64, error) {
	cause, code, err := x.read(c, resp)
	return cause, code, 0, err
}

// read decodes the batch response in resp.
func (x *batchExchange) read(c *Engine, resp *http.Response) (retrypolicy.Cause, int, error) {
	body, err := wire.ReadLimited(nil, resp.Body, c.maxBody, resp.ContentLength)
	if err != nil {
		if errors.Is(err, wire.ErrTooLarge) {
			return retrypolicy.MalformedResponse, 0, err
		}
		return 0, 0, err
	}
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '{' {
		return batchRefused(body)
	}
	// Every member is read once for ambiguous members first (wire.Scan's
	// rule): a member with a result beside a refusal's code must not make
	// the batch a refusal.
	if err := wire.ScanBatch(body); err != nil {
		return retrypolicy.MalformedResponse, 0, err
	}
	var out jsonrpc.RPCResponses
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // as solana-go's own client decodes ids
	if err := dec.Decode(&out); err != nil || len(bytes.TrimSpace(body[dec.InputOffset():])) > 0 {
		// Anything after the array (a second one, a proxy's HTML) is a
		// garbled body, as after a single call's object (wire.Scan).
		return retrypolicy.MalformedResponse, 0, wire.ErrNotJSONRPC
	}
	if len(out) != x.n {
		return retrypolicy.MalformedResponse, 0, errBatchMismatch
	}
	seen := make([]bool, x.n)
	limited, behind := 0, 0
	for _, r := range out {
		id, ok := batchID(r)
		if !ok || id < 0 || id >= x.n || seen[id] || (r.Error == nil && r.Result == nil) {
			return retrypolicy.MalformedResponse, 0, errBatchMismatch
		}
		seen[id] = true
		if r.Error != nil {
			r.Result = nil // a null result beside an error (JSON-RPC 1.0's form) is no result
			switch retry.RPCCodeCause(r.Error.Code) {
			case retrypolicy.RateLimited:
				limited++
			case retrypolicy.NodeBehind:
				behind++
			}
		}
	}
	// Only a refusal of every member fails the batch; mixed answers are the
	// caller's to read, member by member.
	if limited == x.n {
		return retrypolicy.RateLimited, out[0].Error.Code, &transport.RPCError{Code: out[0].Error.Code, Message: out[0].Error.Message}
	}
	if behind == x.n {
		return retrypolicy.NodeBehind, out[0].Error.Code, &transport.RPCError{Code: out[0].Error.Code, Message: out[0].Error.Message}
	}
	x.out, x.limited = out, limited > 0
	return 0, 0, nil
}

// redactMembers removes ep's secrets from the members' errors: the
// server's own words, which may echo the key it was sent (a query value,
// a header), as a single call's error is (wrapErr). Data keeps its shape
// when its redacted JSON still decodes, else becomes that JSON's text.
func (x *batchExchange) redactMembers(ep *endpointClient) {
	for _, r := range x.out {
		e := r.Error
		if e == nil {
			continue
		}
		e.Message = ep.redact(e.Message)
		if e.Data == nil {
			continue
		}
		raw, err := json.Marshal(e.Data)
		if err != nil {
			e.Data = nil
			continue
		}
		if red := ep.redact(string(raw)); red != string(raw) {
			var v any
			dec := json.NewDecoder(strings.NewReader(red))
			dec.UseNumber()
			if dec.Decode(&v) == nil {
				e.Data = v
			} else {
				e.Data = red
			}
		}
	}
}

// batchRefused reads one error object answering a whole batch (a server
// that refuses batches, or a rate limit); anything else is a mismatch.
func batchRefused(body []byte) (retrypolicy.Cause, int, error) {
	b := &wire.Buffer{}
	if err := wire.ParseEnvelope(b, body); err != nil || b.Env.Error == nil {
		return retrypolicy.MalformedResponse, 0, errBatchMismatch
	}
	e := b.Env.Error
	return retry.RPCCodeCause(e.Code), e.Code, &transport.RPCError{Code: e.Code, Message: e.Message, Data: e.Data}
}

// batchID returns a batch response's id as a member index.
func batchID(r *jsonrpc.RPCResponse) (int, bool) {
	if r == nil {
		return 0, false
	}
	n, ok := r.ID.(json.Number)
	if !ok {
		return 0, false
	}
	v, err := n.Int64()
	return int(v), err == nil
}
