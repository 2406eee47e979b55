package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/solroute/solroute/internal/fixturedata"
)

// TestProbeEchoedVersionNotShown: an endpoint whose getVersion answer
// echoes the request URI in solana-core (a careless gateway) must not
// have probe print the URL's path and query, in the table or in --json.
// (A review found them printed.)
func TestProbeEchoedVersionNotShown(t *testing.T) {
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
			v, _ := json.Marshal(map[string]any{"solana-core": "2.0.0 (" + r.RequestURI + ")", "feature-set": 1})
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, v)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, id)
	}))
	t.Cleanup(srv.Close)
	cfg := writeFile(t, "echo.toml", fmt.Sprintf("[[endpoints]]\nname = \"gw\"\nurl = %q\n  [endpoints.roles.read]\n  request_timeout = \"2s\"\n",
		srv.URL+"/v1/"+marker+"?api-key="+marker))
	for _, args := range [][]string{{"probe", "--config", cfg}, {"probe", "--config", cfg, "--json"}} {
		r := runCmd(t, args...)
		if form, leaked := fixturedata.FindSecret(r.stdout+r.stderr, marker); leaked {
			line := ""
			for _, l := range strings.Split(r.stdout, "\n") {
				if strings.Contains(l, marker) {
					line = l
					break
				}
			}
			t.Errorf("%v shows the secret (%s): %s", args, form, strings.TrimSpace(line))
		}
	}
}
