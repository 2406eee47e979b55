package engine_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// hostileLimit is the response limit of the hostile and fuzz clients.
const hostileLimit = 1 << 20

// hostileSecret is put in the endpoint's URL path: no error may show it.
const hostileSecret = "HOSTILEPATHSECRET"

// idToken in a scripted body is replaced by the request's raw id.
const idToken = "@ID@"

// answer is what the hostile server sends back.
type answer struct {
	status  int               // 0 means 200
	header  map[string]string // extra headers
	body    []byte            // idToken replaced by the request's id
	rawBody bool              // send body as is (no id substitution)
}

// hostileServer answers every POST with the current answer. It serves one
// test (or one fuzz worker) at a time.
type hostileServer struct {
	srv *httptest.Server
	mu  sync.Mutex
	cur answer
}

func newHostileServer(t testing.TB) *hostileServer {
	h := &hostileServer{}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hostileServer) set(a answer) {
	h.mu.Lock()
	h.cur = a
	h.mu.Unlock()
}

func (h *hostileServer) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	a := h.cur
	h.mu.Unlock()
	req, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var in struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(req, &in)
	body := a.body
	if !a.rawBody {
		body = bytes.ReplaceAll(body, []byte(idToken), in.ID)
	}
	w.Header().Set("Content-Type", "application/json")
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	status := a.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// hostileClient is an engine, and a client for the typed calls, over one
// endpoint, the hostile server, without retries (so each call is one
// attempt and its cause is the attempt's), with a 1 MiB response limit and
// a 1 ms pause after a rate limit (so a fuzzed 429 does not hold the next
// call).
func hostileClient(t testing.TB, h *hostileServer) (*engine.Engine, *solroute.Client) {
	l := endpoint.Limits{RequestTimeout: 10 * time.Second, PauseAfterRateLimit: time.Millisecond}
	specs := []endpoint.Spec{{
		Name:  "hostile",
		URL:   endpoint.NewSecret(h.srv.URL + "/" + hostileSecret),
		Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: l, endpoint.RoleSend: l},
	}}
	cf := conf{MaxResponseBytes: hostileLimit, Retry: noRetries}
	p, err := admission.New(specs, pool.DefaultSettings(), admission.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tc := newClient(t, p, cf)
	t.Cleanup(func() { _ = tc.Close() })
	ts, _ := cf.build()
	c, err := solroute.FromDocument(&config.Document{Endpoints: specs, Transport: &ts}, solroute.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return tc, c
}

// gzipBomb compresses n zero bytes: a body of about n/1000 bytes that
// expands to n.
func gzipBomb(n int) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.DefaultCompression)
	zeros := make([]byte, 64<<10)
	for left := n; left > 0; left -= len(zeros) {
		_, _ = zw.Write(zeros[:min(left, len(zeros))])
	}
	_ = zw.Close()
	return b.Bytes()
}

func nested(depth int) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + idToken + `,"result":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`)
}

// TestHostileResponses drives getBalance through the transport against a
// table of hostile answers, each with the cause it must be classified as.
// None may panic, hang, allocate without bound or leak the URL.
func TestHostileResponses(t *testing.T) {
	h := newHostileServer(t)
	_, mc := hostileClient(t, h)
	huge := append([]byte(`{"jsonrpc":"2.0","id":`+idToken+`,"result":{"context":{"slot":1},"value":1},"pad":"`),
		bytes.Repeat([]byte("x"), 2*hostileLimit)...)
	huge = append(huge, `"}`...)
	const bombSize = 16 << 20
	bomb := gzipBomb(bombSize)
	for _, tt := range []struct {
		name string
		a    answer
		want retrypolicy.Cause // 0: the call succeeds
		code int               // the JSON-RPC code when the answer is a JSON-RPC error
		// maxAlloc bounds the bytes allocated by the call (0: not checked).
		maxAlloc uint64
	}{
		{name: "valid", a: answer{body: []byte(`{"jsonrpc":"2.0","id":` + idToken + `,"result":{"context":{"slot":7},"value":42}}`)}},
		{name: "huge body", a: answer{body: huge}, want: retrypolicy.MalformedResponse, maxAlloc: 16 * hostileLimit},
		{name: "huge Content-Length, short body", a: answer{header: map[string]string{"Content-Length": "1000000000000"}, body: []byte(`{}`)},
			want: retrypolicy.MalformedResponse},
		{name: "deeply nested result (past encoding/json's depth limit)", a: answer{body: nested(100_000)}, want: retrypolicy.MalformedResponse},
		{name: "nested result of the wrong shape", a: answer{body: nested(1000)}, want: retrypolicy.InvalidResponse},
		{name: "result of the wrong type", a: answer{body: []byte(`{"jsonrpc":"2.0","id":` + idToken + `,"result":"lots"}`)}, want: retrypolicy.InvalidResponse},
		{name: "value of the wrong type", a: answer{body: []byte(`{"jsonrpc":"2.0","id":` + idToken + `,"result":{"context":{"slot":7},"value":-1.5e300}}`)}, want: retrypolicy.InvalidResponse},
		{name: "error code of the wrong type", a: answer{body: []byte(`{"jsonrpc":"2.0","id":` + idToken + `,"error":{"code":"-32005","message":"behind"}}`)}, want: retrypolicy.MalformedResponse},
		{name: "error that is not an object", a: answer{body: []byte(`{"jsonrpc":"2.0","id":` + idToken + `,"error":"boom"}`)}, want: retrypolicy.MalformedResponse},
		{name: "wrong id", a: answer{body: []byte(`{"jsonrpc":"2.0","id":987654321,"result":{"context":{"slot":7},"value":42}}`)}, want: retrypolicy.MalformedResponse},
		{name: "string id", a: answer{body: []byte(`{"jsonrpc":"2.0","id":"` + idToken + `","result":{"context":{"slot":7},"value":42}}`)}, want: retrypolicy.MalformedResponse},
		{name: "no id", a: answer{body: []byte(`{"jsonrpc":"2.0","result":{"context":{"slot":7},"value":42}}`)}, want: retrypolicy.MalformedResponse},
		{name: "duplicate id keys, the last wrong", a: answer{body: []byte(`{"jsonrpc":"2.0","id":` + idToken + `,"id":987654321,"result":{"context":{"slot":7},"value":42}}`)}, want: retrypolicy.MalformedResponse},
		{name: "duplicate result keys, the last garbage", a: answer{body: []byte(`{"jsonrpc":"2.0","id":` + idToken + `,"result":{"context":{"slot":7},"value":42},"result":"x"}`)}, want: retrypolicy.MalformedResponse},
		{name: "result in another case", a: answer{body: []byte(`{"jsonrpc":"2.0","id":` + idToken + `,"Result":{"context":{"slot":7},"value":42}}`)}, want: retrypolicy.MalformedResponse},
		{name: "duplicate context keys", a: answer{body: []byte(`{"jsonrpc":"2.0","id":` + idToken + `,"result":{"context":{"slot":7},"context":{"slot":6},"value":42}}`)}, want: retrypolicy.MalformedResponse},
		{name: "slot in another case", a: answer{body: []byte(`{"jsonrpc":"2.0","id":` + idToken + `,"result":{"context":{"Slot":7},"value":42}}`)}, want: retrypolicy.MalformedResponse},
		{name: "an RpcResponse without a slot", a: answer{body: []byte(`{"jsonrpc":"2.0","id":` + idToken + `,"result":{"value":42}}`)}, want: retrypolicy.MalformedResponse},
		{name: "result and error both", a: answer{body: []byte(`{"jsonrpc":"2.0","id":` + idToken + `,"result":{"context":{"slot":7},"value":42},"error":{"code":-32005,"message":"behind"}}`)},
			want: retrypolicy.MalformedResponse},
		{name: "result and error both, error in another case", a: answer{body: []byte(`{"jsonrpc":"2.0","id":` + idToken + `,"result":{"context":{"slot":7},"value":42},"ERROR":{"code":-32005,"message":"behind"}}`)},
			want: retrypolicy.MalformedResponse},
		{name: "null result beside an error (JSON-RPC 1.0's form)", a: answer{body: []byte(`{"jsonrpc":"2.0","id":` + idToken + `,"result":null,"error":{"code":-32005,"message":"behind"}}`)},
			want: retrypolicy.NodeBehind, code: -32005},
		{name: "null error beside a result (JSON-RPC 1.0's form)", a: answer{body: []byte(`{"jsonrpc":"2.0","id":` + idToken + `,"result":{"context":{"slot":7},"value":42},"error":null}`)}},
		{name: "neither result nor error", a: answer{body: []byte(`{"jsonrpc":"2.0","id":` + idToken + `}`)}, want: retrypolicy.MalformedResponse},
		{name: "null result", a: answer{body: []byte(`{"jsonrpc":"2.0","id":` + idToken + `,"result":null}`)}, want: retrypolicy.InvalidResponse},
		{name: "invalid UTF-8 outside strings", a: answer{body: []byte("{\"jsonrpc\":\"2.0\",\"id\":" + idToken + ",\xff\xfe:1}")}, want: retrypolicy.MalformedResponse},
		{name: "invalid UTF-8 in the error message", a: answer{body: []byte(`{"jsonrpc":"2.0","id":` + idToken + ",\"error\":{\"code\":-32005,\"message\":\"\xff\xfe\xfd\"}}")},
			want: retrypolicy.NodeBehind, code: -32005},
		{name: "empty body", a: answer{body: nil}, want: retrypolicy.MalformedResponse},
		{name: "HTML page with status 200", a: answer{body: []byte("<html><body>502 Bad Gateway</body></html>")}, want: retrypolicy.MalformedResponse},
		{name: "batch array for a single call", a: answer{body: []byte(`[{"jsonrpc":"2.0","id":` + idToken + `,"result":{"context":{"slot":7},"value":42}}]`)}, want: retrypolicy.MalformedResponse},
		{name: "gzip bomb", a: answer{header: map[string]string{"Content-Encoding": "gzip"}, body: bomb, rawBody: true},
			want: retrypolicy.MalformedResponse, maxAlloc: 16 * hostileLimit},
		{name: "status 200 with a rate-limit error code", a: answer{body: []byte(`{"jsonrpc":"2.0","id":` + idToken + `,"error":{"code":429,"message":"Too many requests"}}`)},
			want: retrypolicy.RateLimited, code: 429},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h.set(tt.a)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var before, after runtime.MemStats
			if tt.maxAlloc > 0 {
				runtime.GC()
				runtime.ReadMemStats(&before)
			}
			_, err := mc.GetBalance(ctx, solana.SystemProgramID, solroute.BalanceOptions{})
			if tt.maxAlloc > 0 {
				runtime.ReadMemStats(&after)
				if got := after.TotalAlloc - before.TotalAlloc; got > tt.maxAlloc {
					t.Errorf("the call allocated %d bytes, want at most %d", got, tt.maxAlloc)
				}
			}
			if ctx.Err() != nil {
				t.Fatalf("the call outlived its guard: %v", err)
			}
			if tt.want == 0 {
				if err != nil {
					t.Fatalf("err = %v, want success", err)
				}
				return
			}
			var ce *transport.CallError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %T %v, want a *transport.CallError", err, err)
			}
			if ce.Cause != tt.want {
				t.Errorf("cause = %s, want %s (%v)", ce.Cause, tt.want, err)
			}
			if tt.code != 0 {
				var re *transport.RPCError
				if !errors.As(err, &re) || re.Code != tt.code {
					t.Errorf("err = %v, want a *transport.RPCError with code %d", err, tt.code)
				}
			}
			if strings.Contains(err.Error(), hostileSecret) {
				t.Errorf("error text shows the URL: %v", err)
			}
		})
	}
}
