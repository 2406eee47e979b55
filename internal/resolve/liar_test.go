package resolve_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// lies rewrites the results of some methods: the method's result in, the
// lie out (nil: the truth).
type lies map[string]func(result json.RawMessage) json.RawMessage

// liar starts, on loopback, an endpoint that forwards every JSON-RPC call
// to upstream (a fixtures server) and answers what upstream answered, but
// with the results of the methods in lie rewritten: a provider's cache, a
// proxy over a broken node, or a node that lies. It returns its URL.
func liar(t *testing.T, upstream string, lie lies) string {
	t.Helper()
	return proxy(t, func(_ *http.Request, body []byte) (string, func(json.RawMessage) json.RawMessage) {
		return upstream, lie[method(body)]
	})
}

// proxy starts, on loopback, an endpoint that forwards every call to the
// upstream route picks for it and answers what that upstream answered,
// its result rewritten by the rewrite route returns (none when nil, or
// when it returns nil). An upstream of "" forwards nothing: the call hangs
// until its caller goes away. It returns its URL.
func proxy(t *testing.T, route func(r *http.Request, body []byte) (upstream string, rewrite func(json.RawMessage) json.RawMessage)) string {
	t.Helper()
	client := &http.Client{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		upstream, rewrite := route(r, body)
		if upstream == "" {
			<-r.Context().Done()
			return
		}
		resp, err := client.Post(upstream, "application/json", bytes.NewReader(body))
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		answer, err := io.ReadAll(resp.Body)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		var env map[string]json.RawMessage
		if rewrite != nil && json.Unmarshal(answer, &env) == nil && env["result"] != nil {
			if lied := rewrite(env["result"]); lied != nil {
				env["result"] = lied
				answer, _ = json.Marshal(env)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(answer)
	}))
	t.Cleanup(func() {
		srv.Close()
		client.CloseIdleConnections()
	})
	return srv.URL
}

// method is the method of a single JSON-RPC call ("" for a batch or
// garbage).
func method(body []byte) string {
	var call struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &call) != nil {
		return ""
	}
	return call.Method
}

// heightLie is a getEpochInfo result with blockHeight set to height's
// value when that is not 0, absoluteSlot (the answering node's true
// finalized slot) untouched.
func heightLie(height *atomic.Uint64) func(json.RawMessage) json.RawMessage {
	return func(result json.RawMessage) json.RawMessage {
		h := height.Load()
		if h == 0 {
			return nil
		}
		var info map[string]any
		if json.Unmarshal(result, &info) != nil {
			return nil
		}
		info["blockHeight"] = h
		b, _ := json.Marshal(info)
		return b
	}
}

// notFound is a getSignatureStatuses result that knows no signature: a
// null for each, at the answer's true context slot.
func notFound(result json.RawMessage) json.RawMessage {
	var r struct {
		Context json.RawMessage   `json:"context"`
		Value   []json.RawMessage `json:"value"`
	}
	if json.Unmarshal(result, &r) != nil {
		return nil
	}
	for i := range r.Value {
		r.Value[i] = json.RawMessage("null")
	}
	b, _ := json.Marshal(r)
	return b
}
