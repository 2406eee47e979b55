package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/solroute/solroute/internal/fixturedata"
)

// TestProbeEchoedVersionNotShown: a careless gateway that echoes the
// request in getVersion's solana-core must not have probe print the URL's
// secrets, in the table or in --json: neither the request URI (path and
// query), nor the api-key alone, which has a version's shape (letters and
// digits) and is hidden because the endpoint's secret set holds it. (Two
// reviews found each printed.)
func TestProbeEchoedVersionNotShown(t *testing.T) {
	for name, tc := range map[string]struct {
		path string
		echo func(r *http.Request) string
	}{
		"request URI": {"/v1/" + marker + "?api-key=" + marker, func(r *http.Request) string { return "2.0.0 (" + r.RequestURI + ")" }},
		"key alone":   {"/?api-key=" + marker, func(r *http.Request) string { return r.URL.Query().Get("api-key") }},
	} {
		t.Run(name, func(t *testing.T) {
			url := versionEcho(t, tc.echo) + tc.path
			cfg := writeFile(t, "echo.toml", fmt.Sprintf("[[endpoints]]\nname = \"gw\"\nurl = %q\n  [endpoints.roles.read]\n  request_timeout = \"2s\"\n", url))
			for _, args := range [][]string{{"probe", "--config", cfg}, {"probe", "--config", cfg, "--json"}} {
				r := runCmd(t, args...)
				if form, leaked := fixturedata.FindSecret(r.stdout+r.stderr, marker); leaked {
					t.Errorf("%v shows the secret (%s) as the node's version", args, form)
				}
			}
		})
	}
}

// versionEcho starts a JSON-RPC server whose getVersion answers echo(r)
// as solana-core, and which knows no other method; it returns its URL.
func versionEcho(t *testing.T, echo func(r *http.Request) string) string {
	t.Helper()
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
			v, _ := json.Marshal(map[string]any{"solana-core": echo(r), "feature-set": 1})
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, v)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, id)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
