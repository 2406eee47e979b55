package engine

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"time"

	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/wire"
	"github.com/solroute/solroute/transport"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/retrypolicy"
)

// Client is a solana-go JSON-RPC client: rpc.NewWithCustomRPCClient(c)
// routes every solana-go call through the pool.
var _ rpc.JSONRPCClient = (*Engine)(nil)

// CallForInto calls method with params and decodes the result into out
// with encoding/json (a JSON null result sets a pointer out to nil, as
// solana-go's own client does). out may be nil to discard the result.
// For a read that carries a slot (methods.SlotsOf), the answer's slot
// feeds the pool's lag tracking and, with monotonic reads, the caller's
// high-water mark (see Settings.MonotonicReads).
// The method's role, retry class and budget (methods.Method.Timeout: the
// heavy methods have their own) come from the registry. A failure is a
// *CallError.
func (c *Engine) CallForInto(ctx context.Context, out any, method string, params []any) error {
	if !decodable(out) { // before anything is sent: a send would go out, then fail ambiguous
		return &transport.CallError{Method: method, Errs: []error{errResultTarget}}
	}
	if _, ok := c.coalesce.methods[method]; ok { // Settings.Coalesce (coalesce.go)
		return c.callCoalesced(ctx, out, method, params)
	}
	return c.callForInto(ctx, out, method, params)
}

// callForInto is CallForInto's own call.
func (c *Engine) callForInto(ctx context.Context, out any, method string, params []any) error {
	return c.callInto(ctx, out, method, params, nil)
}

// callInto is callForInto; lead, when not nil, is the flight the call
// leads (coalesce.go), told the call's slot floor.
func (c *Engine) callInto(ctx context.Context, out any, method string, params []any, lead *flight) error {
	id := c.nextID.Add(1)
	e, known := c.registry.Lookup(method)
	k := &intoCall{cs: callState{method: method, class: e.Class, known: known, ownTimeout: e.Timeout},
		x: intoExchange{id: id, out: out}}
	cs, x := &k.cs, &k.x
	cs.loop = &k.loop
	cs.history = admission.ReadsHistory(e, params)
	tracked, inject := c.book.Plan(c.clock.Now(), method, params, c.sessionFor(ctx), &cs.plan)
	if tracked {
		cs.slots, x.slots = &cs.plan, &cs.plan
	}
	if lead != nil {
		lead.floor = cs.plan.Floor
	}
	body, err := wire.EncodeRequest(id, method, params)
	if err != nil {
		return &transport.CallError{Method: method, Errs: []error{&encodeError{err: err}}}
	}
	if inject > 0 {
		// Spliced into the encoded request: the caller's params are
		// never touched.
		if b, ok := wire.WithMinContextSlot(body, cs.plan.Traits.Config, inject); ok {
			body = b
		}
	}
	cs.body, cs.x = body, x
	return c.do(ctx, cs, e.Role)
}

// CallWithCallback calls method and hands the raw HTTP exchange to
// callback, under the same loop as CallForInto. Only a 2xx response reaches
// the callback (its body bounded by MaxResponseBytes); a failure status is
// classified and retried like any other, and so is an answer that is one
// JSON-RPC error the endpoint is to blame for (callbackExchange.call). An
// error from the callback ends
// the call (as InvalidResponse: any endpoint would answer the same) and is
// reachable with errors.Is/As unless its text holds a secret.
func (c *Engine) CallWithCallback(ctx context.Context, method string, params []any, callback func(*http.Request, *http.Response) error) error {
	if callback == nil {
		return &transport.CallError{Method: method, Errs: []error{errCallbackRequired}}
	}
	id := c.nextID.Add(1)
	body, err := wire.EncodeRequest(id, method, params)
	if err != nil {
		return &transport.CallError{Method: method, Errs: []error{&encodeError{err: err}}}
	}
	e, known := c.registry.Lookup(method)
	return c.do(ctx, &callState{method: method, body: body, class: e.Class, known: known, ownTimeout: e.Timeout,
		x: &callbackExchange{callback: callback, id: id}}, e.Role)
}

// CallBatch sends requests as one batch to one endpoint under one permit
// per attempt. Like solana-go's own client it sets each request's ID to its
// index and JSONRPC to "2.0". The batch's role is send when any member's
// is; its class is the strictest of its members' (NotApplicable, then
// NeverAfterDispatch, then Idempotent), and its budget the longest of its
// members' (methods.Method.Timeout, else the endpoints' request timeout).
// Member errors are returned in the
// responses; only a batch whose every member is rate limited (or every
// member behind) fails as a whole.
func (c *Engine) CallBatch(ctx context.Context, requests jsonrpc.RPCRequests) (jsonrpc.RPCResponses, error) {
	if len(requests) == 0 {
		return nil, &transport.CallError{Method: batchMethod, Errs: []error{errEmptyBatch}}
	}
	role, class := endpoint.RoleRead, retrypolicy.Idempotent
	var longest time.Duration // the longest member budget of its own
	allOwn := true
	for i, r := range requests {
		if r == nil {
			return nil, &transport.CallError{Method: batchMethod, Errs: []error{&batchInputError{index: i, why: "is nil"}}}
		}
	}
	for i, r := range requests {
		r.ID = i
		r.JSONRPC = "2.0"
		e, _ := c.registry.Lookup(r.Method)
		if e.Role == endpoint.RoleSend {
			role = endpoint.RoleSend
		}
		class = stricter(class, e.Class)
		longest, allOwn = max(longest, e.Timeout), allOwn && e.Timeout > 0
	}
	body, err := json.Marshal(requests)
	if err != nil {
		return nil, &transport.CallError{Method: batchMethod, Errs: []error{&encodeError{err: err}}}
	}
	x := &batchExchange{n: len(requests)}
	cs := &callState{method: batchMethod, body: body, class: class, x: x, batch: len(requests), known: true}
	// A batch is as slow as its slowest member: it gets the longest
	// member's budget (a member without one of its own has the endpoints').
	if allOwn {
		cs.ownTimeout = longest
	} else {
		cs.minTimeout = longest
	}
	if err := c.do(ctx, cs, role); err != nil {
		return nil, err
	}
	return x.out, nil
}

// decodable reports whether encoding/json can decode into out: nil (the
// result discarded) or a non-nil pointer, json.Unmarshal's own rule.
func decodable(out any) bool {
	if out == nil {
		return true
	}
	v := reflect.ValueOf(out)
	return v.Kind() == reflect.Pointer && !v.IsNil()
}

// batchInputError is a batch member refused before anything is sent.
type batchInputError struct {
	index int
	why   string
}

func (e *batchInputError) Error() string {
	return "transport: batch member " + strconv.Itoa(e.index) + " " + e.why
}

// batchMethod names a batch in errors and logs.
const batchMethod = "batch"

// stricter returns the less permissive of two classes: NotApplicable is
// stricter than NeverAfterDispatch, which is stricter than Idempotent. An
// unknown class counts as NotApplicable.
func stricter(a, b retrypolicy.Class) retrypolicy.Class {
	rank := func(c retrypolicy.Class) int {
		switch c {
		case retrypolicy.Idempotent:
			return 0
		case retrypolicy.NeverAfterDispatch:
			return 1
		}
		return 2
	}
	if rank(b) > rank(a) {
		if rank(b) == 2 {
			return retrypolicy.NotApplicable
		}
		return b
	}
	return a
}

// encodeError is a request whose params do not marshal to JSON.
type encodeError struct{ err error }

func (e *encodeError) Error() string { return "transport: params do not encode: " + e.err.Error() }
func (e *encodeError) Unwrap() error { return e.err }
