package engine

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// The response byte budget (issue 25, plans/018-reads-at-scale.md): one
// per Engine, shared by every request path (plain, hedged, batch,
// callback, the resolver's and the background's reads), counted in bytes
// and never waited on. Every 2xx response body the engine reads is
// charged: its Content-Length before a byte is read, otherwise as it is
// read; a charge that does not fit refuses the answer at once (busyError).
// The charge is released when the attempt's exchange returns, after the
// decode: the raw body is what the engine holds; the decoded value is the
// caller's. A coalesced read's result kept for its followers is charged
// too, until its last follower decoded it (coalescer.keep, hold,
// release); a copy that does not fit is not made, and refuses no call.

// sendReserve is what a call that is not Idempotent (a send) charges
// before its request is dispatched: a send refused for want of budget
// before it leaves is a clean ErrBusy, never ambiguous. 64 KiB covers a
// sendTransaction answer (a signature, ~100 bytes) and its largest
// ordinary error (-32002 with simulation logs, a few KiB); only a larger
// answer charges more, after dispatch, where a refusal is ambiguous.
const sendReserve = 64 << 10

// ErrBusy is matched (errors.Is) by the error of a call whose answer did
// not fit the client's response byte budget at once
// (transport.Settings.ResponseBudgetBytes): refused, never waited for.
var ErrBusy = errors.New("transport: response byte budget full; not waited for")

// budget is a semaphore counted in bytes that never blocks.
type budget struct {
	limit   int64
	used    atomic.Int64
	refused atomic.Uint64
}

// charge takes n bytes if they fit, and reports what was available; a
// charge that does not fit counts as a refused answer.
func (b *budget) charge(n int64) (ok bool, available int64) {
	ok, available = b.take(n)
	if !ok {
		b.refused.Add(1)
	}
	return ok, available
}

// take takes n bytes if they fit, and reports what was available,
// counting nothing: what a coalesced read's shared copy charges
// (coalescer.keep), whose refusal fails no call.
func (b *budget) take(n int64) (ok bool, available int64) {
	for {
		u := b.used.Load()
		if u+n > b.limit {
			return false, b.limit - u
		}
		if b.used.CompareAndSwap(u, u+n) {
			return true, 0
		}
	}
}

// release gives n charged bytes back.
func (b *budget) release(n int64) {
	if n != 0 {
		b.used.Add(-n)
	}
}

// refusal is the error of a charge of wanted bytes that did not fit.
func (b *budget) refusal(wanted, available int64) *busyError {
	return &busyError{wanted: wanted, available: available, limit: b.limit}
}

// usage is the budget now.
func (b *budget) usage() transport.ResponseBudget {
	return transport.ResponseBudget{Used: b.used.Load(), Limit: b.limit, Refused: b.refused.Load()}
}

// busyError is an answer refused by the budget. method is set by post;
// the endpoint is named by the attemptError around it.
type busyError struct {
	method                   string
	wanted, available, limit int64
}

func (e *busyError) Error() string {
	return "response byte budget full: " + e.method + " wanted " + strconv.FormatInt(e.wanted, 10) +
		" bytes, available " + strconv.FormatInt(e.available, 10) + " of limit " +
		strconv.FormatInt(e.limit, 10) + "; not waited for"
}

// Is makes the refusal match ErrBusy.
func (e *busyError) Is(target error) bool { return target == ErrBusy }

// bodyCharge is what one attempt charged the budget, and the reader that
// charges a body of unknown length as it is read. It lives in the
// attempt's attemptTimer: no allocation.
type bodyCharge struct {
	b       *budget
	charged int64
	// r is the body being read; read counts its bytes; limit is the
	// response size limit (a body past it is refused as too large, not
	// charged further).
	r           io.ReadCloser
	read, limit int64
	err         *busyError
}

// reserve charges n bytes before the request is sent (a send's
// sendReserve); the error is the refusal.
func (bc *bodyCharge) reserve(b *budget, n int64) *busyError {
	bc.b = b
	if ok, avail := b.charge(n); !ok {
		return b.refusal(n, avail)
	}
	bc.charged = n
	return nil
}

// admit charges resp's body: its Content-Length (beyond what was
// reserved) when known and within limit, or else, from here on, the
// bytes read from it (resp.Body becomes bc). The error is the refusal.
func (bc *bodyCharge) admit(b *budget, resp *http.Response, limit int64) *busyError {
	bc.b = b
	if n := resp.ContentLength; n >= 0 {
		if n > limit { // refused as too large by the exchange, unread
			return nil
		}
		if more := n - bc.charged; more > 0 {
			if ok, avail := b.charge(more); !ok {
				return b.refusal(n, avail+bc.charged)
			}
			bc.charged = n
		}
		return nil
	}
	bc.r, bc.limit, bc.read = resp.Body, limit, 0
	resp.Body = bc
	return nil
}

// Read reads from the body and charges what arrived, with a quarter more
// for the buffer it is read into to grow (append grows a large slice by
// about 1.25×): the first chunk that does not fit fails the read.
func (bc *bodyCharge) Read(p []byte) (int, error) {
	if bc.err != nil {
		return 0, bc.err
	}
	n, err := bc.r.Read(p)
	bc.read += int64(n)
	if need := bc.read; need > bc.charged && need <= bc.limit {
		want := min(need+need/4, bc.limit+1)
		if ok, avail := bc.b.charge(want - bc.charged); !ok {
			bc.err = bc.b.refusal(want, avail+bc.charged)
			return n, bc.err
		}
		bc.charged = want
	}
	return n, err
}

// Close closes the body.
func (bc *bodyCharge) Close() error { return bc.r.Close() }

// done releases everything charged.
func (bc *bodyCharge) done() {
	if bc.b != nil {
		bc.b.release(bc.charged)
		bc.charged = 0
	}
}

// busy records a refusal by the budget, the request dispatched as d: a
// malformed response (an answer the client will not hold, as one over
// the size limit) that attempt makes the client's own fault, and that
// the retry policy stops on (retry.Input.Busy), ambiguous for a send
// already dispatched.
func (o *outcome) busy(ep *endpointClient, cs *callState, d retrypolicy.DispatchState, e *busyError) outcome {
	e.method = cs.method
	o.Dispatch, o.isBusy = d, true
	o.fail(ep, retrypolicy.MalformedResponse, e)
	return *o
}
