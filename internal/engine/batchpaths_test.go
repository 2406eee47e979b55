package engine_test

// The entry points beside the plain typed call (CallBatch,
// CallWithCallback, RPC()) held to the promises a review found them
// breaking (stop 34): each test failed on the code it read.

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
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

// rawServer answers every request with body(), counting the requests.
type rawServer struct {
	srv  *httptest.Server
	n    atomic.Int64
	body func() string
}

func newRaw(t *testing.T, body func() string) *rawServer {
	s := &rawServer{body: body}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		s.n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, s.body())
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// rawPool is a pool over urls named a, b, ...: a in tier 0, the rest in
// tier 1, on a fake clock nobody needs to move (backoffs are 0).
func rawPool(t *testing.T, limits endpoint.Limits, urls ...string) *admission.Pool {
	t.Helper()
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

var rawLimits = endpoint.Limits{RequestTimeout: time.Second}

// TestBatchMemberErrorIsRedacted: a server echoing the API key in a
// batch member's error (message or data) reaches the caller redacted, as
// a single call's does (TestEchoedSecretInRPCError), through CallBatch
// and RPC().RPCCallBatch.
func TestBatchMemberErrorIsRedacted(t *testing.T) {
	const secret = "MEMBERSECRETXYZ"
	a := newRaw(t, func() string {
		return `[{"jsonrpc":"2.0","id":0,"result":5},{"jsonrpc":"2.0","id":1,"error":{"code":-32602,` +
			`"message":"invalid key /` + secret + `","data":{"path":"/` + secret + `"}}}]`
	})
	c := newClient(t, rawPool(t, rawLimits, a.srv.URL+"/"+secret), conf{})
	defer c.Close()
	for name, call := range map[string]func() (jsonrpc.RPCResponses, error){
		"CallBatch": func() (jsonrpc.RPCResponses, error) {
			return c.CallBatch(guardCtx(t), jsonrpc.RPCRequests{{Method: "getSlot"}, {Method: "getSlot"}})
		},
		"RPC().RPCCallBatch": func() (jsonrpc.RPCResponses, error) {
			return rpc.NewWithCustomRPCClient(c).RPCCallBatch(guardCtx(t), jsonrpc.RPCRequests{{Method: "getSlot"}, {Method: "getSlot"}})
		},
	} {
		out, err := call()
		if err != nil || len(out) != 2 {
			t.Fatalf("%s: %v, %d members", name, err, len(out))
		}
		for _, r := range out {
			if r.Error == nil {
				continue
			}
			for _, s := range []string{r.Error.Error(), fmt.Sprintf("%+v", r.Error), fmt.Sprint(r.Error.Data)} {
				if strings.Contains(s, secret) {
					t.Errorf("%s: member %v's error shows the URL's secret: %s", name, r.ID, s)
				}
			}
		}
	}
}

// TestCallBatchNilMemberIsBadInput: a nil *RPCRequest in a batch is an
// error naming it, before any request is sent (it panicked).
func TestCallBatchNilMemberIsBadInput(t *testing.T) {
	a := newRaw(t, func() string { return `[]` })
	c := newClient(t, rawPool(t, rawLimits, a.srv.URL), conf{})
	defer c.Close()
	var err error
	panicked := func() (p any) {
		defer func() { p = recover() }()
		_, err = c.CallBatch(guardCtx(t), jsonrpc.RPCRequests{{Method: "getSlot"}, nil})
		return nil
	}()
	if panicked != nil {
		t.Fatalf("CallBatch with a nil member panicked: %v", panicked)
	}
	if err == nil || a.n.Load() != 0 {
		t.Fatalf("err = %v, %d requests; want an input error and no request", err, a.n.Load())
	}
}

// TestBadResultTargetSendsNothing: a result target that cannot be
// decoded into (not a pointer, or a nil pointer) is bad input, known
// before anything is sent. It was delivered, and the call then failed as
// ambiguous ("result does not decode: json: Unmarshal(non-pointer
// string)"): a send to resolve that the caller's typo caused. Through
// CallForInto and RPC().
func TestBadResultTargetSendsNothing(t *testing.T) {
	params, sig := signedTx(t, 92<<11)
	var s string
	for name, call := range map[string]func(c *engine.Engine) error{
		"CallForInto non-pointer": func(c *engine.Engine) error { return c.CallForInto(guardCtx(t), s, "sendTransaction", params) },
		"CallForInto nil pointer": func(c *engine.Engine) error {
			return c.CallForInto(guardCtx(t), (*string)(nil), "sendTransaction", params)
		},
		"RPC() non-pointer": func(c *engine.Engine) error {
			return rpc.NewWithCustomRPCClient(c).RPCCallForInto(guardCtx(t), s, "sendTransaction", params)
		},
	} {
		a := newScripted(t, func(string, int) string { return rpcResult(`"` + sig + `"`) })
		c := newClient(t, scriptedPool(t, a), conf{})
		err := call(c)
		_ = c.Close()
		if n := a.requests("sendTransaction"); err == nil || n != 0 || errors.Is(err, engine.ErrAmbiguousDispatch) {
			t.Errorf("%s: err = %v, delivered %d times; want an input error before any request", name, err, n)
		}
	}
}

// TestCallbackPanicGivesTheSlotBack: a callback that panics unwound past
// the permit's Done, so the endpoint's concurrency slot was never given
// back: with max_concurrent_requests = 1 the endpoint served nothing
// again. The panic still reaches the caller.
func TestCallbackPanicGivesTheSlotBack(t *testing.T) {
	a := newScripted(t, func(string, int) string { return rpcResult(`5`) })
	p := rawPool(t, endpoint.Limits{RequestTimeout: time.Second, MaxConcurrentRequests: 1}, a.srv.URL)
	c := newClient(t, p, conf{})
	defer c.Close()
	var p2 any
	func() {
		defer func() { p2 = recover() }()
		_ = c.CallWithCallback(guardCtx(t), "getSlot", nil, func(*http.Request, *http.Response) error { panic("callback bug") })
	}()
	if p2 != "callback bug" {
		t.Fatalf("recovered %v, want the callback's panic", p2)
	}
	for _, s := range p.Snapshot() {
		if s.InFlight != 0 {
			t.Errorf("%s %s: %d in flight after the call returned (panicked); want 0", s.Name, s.Role, s.InFlight)
		}
	}
}

// TestBatchAnswerWithTrailingDataIsMalformed: a single call's answer
// with anything after its object is refused (wire.Scan: ErrNotJSONRPC)
// and a read fails over; so is a batch's answer with a second array (or
// HTML) after it, which was taken, first array only, as good.
func TestBatchAnswerWithTrailingDataIsMalformed(t *testing.T) {
	first := `[{"jsonrpc":"2.0","id":0,"result":1},{"jsonrpc":"2.0","id":1,"result":1}]`
	for name, tail := range map[string]string{
		"second array": `[{"jsonrpc":"2.0","id":0,"result":2},{"jsonrpc":"2.0","id":1,"result":2}]`,
		"html":         `<html>502 Bad Gateway</html>`,
	} {
		a := newRaw(t, func() string { return first + tail })
		b := newRaw(t, func() string { return `[{"jsonrpc":"2.0","id":0,"result":3},{"jsonrpc":"2.0","id":1,"result":3}]` })
		c := newClient(t, rawPool(t, rawLimits, a.srv.URL, b.srv.URL), conf{})
		out, err := c.CallBatch(guardCtx(t), jsonrpc.RPCRequests{{Method: "getSlot"}, {Method: "getSlot"}})
		_ = c.Close()
		if err != nil || len(out) != 2 || string(out[0].Result) != "3" || b.n.Load() != 1 {
			got := ""
			if len(out) > 0 {
				got = string(out[0].Result)
			}
			t.Errorf("%s: err = %v, member 0 = %s, requests at b %d; want b's answer (3) after a's garbled one", name, err, got, b.n.Load())
		}
	}
}
