package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/solroute/solroute/internal/fixturedata"
)

// TestProbeEchoedKeyAsVersionNotShown: a gateway that echoes the
// request's api-key value alone (not the whole request URI) in
// solana-core passes a version's shape (letters and digits): probe must
// still not print it, as the endpoint's secret set hides it. (A review of
// stop 33's diff found the key printed.)
func TestProbeEchoedKeyAsVersionNotShown(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		id := string(req.ID)
		if id == "" {
			id = "null"
		}
		if req.Method == "getVersion" {
			v, _ := json.Marshal(map[string]any{"solana-core": r.URL.Query().Get("api-key"), "feature-set": 1})
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, v)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, id)
	}))
	t.Cleanup(srv.Close)
	cfg := writeFile(t, "echo.toml", fmt.Sprintf("[[endpoints]]\nname = \"gw\"\nurl = %q\n  [endpoints.roles.read]\n  request_timeout = \"2s\"\n",
		srv.URL+"/?api-key="+marker))
	for _, args := range [][]string{{"probe", "--config", cfg}, {"probe", "--config", cfg, "--json"}} {
		r := runCmd(t, args...)
		if form, leaked := fixturedata.FindSecret(r.stdout+r.stderr, marker); leaked {
			t.Errorf("%v shows the key (%s) as the node's version", args, form)
		}
	}
}
