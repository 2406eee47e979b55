package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/solroute/solroute/internal/fixturedata"
)

// echoAll is what a gateway might echo: the request's URI and every header value.
func echoAll(r *http.Request) string {
	var b strings.Builder
	b.WriteString(r.RequestURI)
	for k, v := range r.Header {
		b.WriteString(" " + k + "=" + strings.Join(v, ","))
	}
	return b.String()
}

func reqID(r *http.Request) (json.RawMessage, string) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(body, &req)
	if len(req.ID) == 0 {
		req.ID = json.RawMessage("1")
	}
	return req.ID, req.Method
}

// TestNoSecretInEchoedAnswers: servers that echo the request's URL and
// headers where the secrets matrix does not look: a non-JSON body (HTTP
// 200, 403 and 500), a redirect's Location, and a result string in place
// of getHealth's "ok" (and of the other canaries' answers), which probe
// printed verbatim (docs/cli.md, "Secrets": never printed, "not when a
// server's error echoes them back, raw or encoded").
func TestNoSecretInEchoedAnswers(t *testing.T) {
	handlers := map[string]http.HandlerFunc{
		"html200": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<html>bad gateway for %s</html>", echoAll(r))
		},
		"html403": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(403)
			fmt.Fprintf(w, "invalid api key: %s", echoAll(r))
		},
		"html500": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(500)
			fmt.Fprintf(w, "upstream failed for %s", echoAll(r))
		},
		"redirect": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", "https://other.example"+r.RequestURI)
			w.WriteHeader(302)
		},
		"result": func(w http.ResponseWriter, r *http.Request) {
			id, _ := reqID(r)
			res, _ := json.Marshal(echoAll(r))
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, res)
		},
	}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			doc := fmt.Sprintf("[[endpoints]]\nname = %q\nurl = %q\nheaders = %s\n  [endpoints.roles.read]\n  request_timeout = \"2s\"\n",
				name, secretURL("http", strings.TrimPrefix(srv.URL, "http://")), secretHeaders)
			cfg := writeFile(t, "rpc.toml", "[retry]\ninitial_backoff = \"1ms\"\nmax_backoff = \"2ms\"\n"+doc)
			runs := [][]string{
				{"probe", "--config", cfg},
				{"probe", "--config", cfg, "--json"},
			}
			if name != "result" { // call prints a result as the endpoint sent it, by design
				runs = append(runs, []string{"call", "--config", cfg, "--attempts", "getSlot"})
			}
			for _, args := range runs {
				r := runCmd(t, args...)
				for stream, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
					if form, leaked := fixturedata.FindSecret(out, marker); leaked {
						t.Errorf("%v (code %d): %s shows the secret (%s):\n%s", args, r.code, stream, form, out)
					}
				}
			}
		})
	}
}
