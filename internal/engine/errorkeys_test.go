package engine_test

// An error object whose code, message or data is given twice, or once
// more in another spelling, can be read two ways. Adapted from the
// rev-batch review's TestReviewRepeatedErrorCodeResendsSend
// (internal/engine/review_batch_test.go on its branch), with helpers
// renamed so both files can live in one package.

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/pool"
)

// fixedServer answers every request with body, counting the requests.
type fixedServer struct {
	srv  *httptest.Server
	n    atomic.Int64
	body string
}

func newFixed(t *testing.T, body string) *fixedServer {
	s := &fixedServer{body: body}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		s.n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, s.body)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// urlPool is a pool over urls named a, b, ...: a in tier 0, the rest in
// tier 1, on a fake clock nobody needs to move (backoffs are 0).
func urlPool(t *testing.T, urls ...string) *admission.Pool {
	t.Helper()
	limits := endpoint.Limits{RequestTimeout: time.Second}
	specs := make([]endpoint.Spec, len(urls))
	for i, u := range urls {
		specs[i] = endpoint.Spec{Name: string(rune('a' + i)), URL: endpoint.NewSecret(u), Tier: min(i, 1),
			Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: limits, endpoint.RoleSend: limits}}
	}
	p, err := admission.New(specs, pool.DefaultSettings(), admission.Options{Clock: clockwork.NewFakeClockAt(epoch)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRepeatedErrorKeyNeverResendsSend: an error object whose "code" is
// given twice (or once more as "Code", or escaped) reads as -32603 (may
// have acted) to a reader that takes the first key and as -32005 (a proof
// of no dispatch) to encoding/json, which takes the last. README, "Never
// after dispatch": such an answer proves nothing, so the send stops
// ambiguous at a and is never resent to b, on every path: a single call
// (CallForInto through solana-go's RPC()), each batch member, and one
// error object answering the whole batch. message and data are held to
// the same rule.
func TestRepeatedErrorKeyNeverResendsSend(t *testing.T) {
	p1, sig1 := signedTx(t, 91<<11)
	p2, _ := signedTx(t, 91<<11+1)
	for _, cd := range []struct{ name, err string }{
		{"code twice", `{"code":-32603,"message":"m","code":-32005}`},
		{"code and Code", `{"code":-32603,"message":"m","Code":-32005}`},
		{"code escaped", `{"code":-32603,"message":"m","co\u0064e":-32005}`},
		{"Code alone", `{"Code":-32005,"message":"m"}`},
		{"message twice", `{"code":-32005,"message":"m","message":"n"}`},
		{"data and DATA", `{"code":-32005,"message":"m","data":1,"DATA":2}`},
	} {
		t.Run("batch members/"+cd.name, func(t *testing.T) {
			a := newScripted(t, func(string, int) string { return `{"jsonrpc":"2.0","id":` + idToken + `,"error":` + cd.err + `}` })
			b := newScripted(t, func(string, int) string { return rpcResult(`"` + sig1 + `"`) })
			c := newClient(t, scriptedPool(t, a, b), conf{})
			defer c.Close()
			_, err := c.CallBatch(guardCtx(t), jsonrpc.RPCRequests{{Method: "sendTransaction", Params: p1}, {Method: "sendTransaction", Params: p2}})
			if !errors.Is(err, engine.ErrAmbiguousDispatch) || b.requests("sendTransaction") != 0 {
				t.Errorf("err = %v; sends at a %d, at b %d; want ambiguous at a, none at b",
					err, a.requests("sendTransaction"), b.requests("sendTransaction"))
			}
		})
		t.Run("one object for the batch/"+cd.name, func(t *testing.T) {
			a := newFixed(t, `{"jsonrpc":"2.0","id":null,"error":`+cd.err+`}`)
			b := newScripted(t, func(string, int) string { return rpcResult(`"` + sig1 + `"`) })
			c := newClient(t, urlPool(t, a.srv.URL, b.srv.URL), conf{})
			defer c.Close()
			_, err := c.CallBatch(guardCtx(t), jsonrpc.RPCRequests{{Method: "sendTransaction", Params: p1}, {Method: "sendTransaction", Params: p2}})
			if !errors.Is(err, engine.ErrAmbiguousDispatch) || b.requests("sendTransaction") != 0 {
				t.Errorf("err = %v; requests at a %d, sends at b %d; want ambiguous at a, none at b",
					err, a.n.Load(), b.requests("sendTransaction"))
			}
		})
		t.Run("RPC() send/"+cd.name, func(t *testing.T) {
			a := newScripted(t, func(string, int) string { return `{"jsonrpc":"2.0","id":` + idToken + `,"error":` + cd.err + `}` })
			b := newScripted(t, func(string, int) string { return rpcResult(`"` + sig1 + `"`) })
			c := newClient(t, scriptedPool(t, a, b), conf{})
			defer c.Close()
			var sig string
			err := rpc.NewWithCustomRPCClient(c).RPCCallForInto(guardCtx(t), &sig, "sendTransaction", p1)
			if !errors.Is(err, engine.ErrAmbiguousDispatch) || b.requests("sendTransaction") != 0 {
				t.Errorf("err = %v; sends at a %d, at b %d; want ambiguous at a, none at b",
					err, a.requests("sendTransaction"), b.requests("sendTransaction"))
			}
		})
	}
}
