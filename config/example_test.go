package config_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/solroute/solroute/config"
)

// A document is parsed with an injected environment; the Config prints no
// secret.
func ExampleParse() {
	doc := `cluster = "mainnet-beta"
[[endpoints]]
name = "primary"
url = "https://rpc.example/?api-key=${PROVIDER_KEY}"
  [endpoints.roles.read]
  requests_per_second = 50
`
	lookup := func(name string) (string, bool) { return "s3cr3t", name == "PROVIDER_KEY" }
	cfg, err := config.Parse([]byte(doc), config.ParseOptions{LookupEnv: lookup})
	if err != nil {
		fmt.Println(err)
		return
	}
	h, _ := cfg.ExpectedGenesisHash()
	fmt.Println(cfg.Endpoints[0].Name, cfg.Endpoints[0].URL, h)
	// Output: primary [redacted] 5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d
}

// Every problem is reported at once, with its line and key path, and no
// URL is ever quoted.
func ExampleValidationError() {
	doc := `[[endpoints]]
name = "primary"
url = "https://rpc.example/?api-key=${PROVIDER_KEY}"
tier = -1
  [endpoints.roles.read]
  request_timeout = "5 seconds"
  requests_per_minute = 3000
`
	_, err := config.Parse([]byte(doc), config.ParseOptions{
		Filename:  "solroute.toml",
		LookupEnv: func(string) (string, bool) { return "", false },
	})
	fmt.Println(err)
	// Output:
	// config: solroute.toml: invalid configuration (4 problems):
	//   solroute.toml:3: endpoints[0].url: environment variable PROVIDER_KEY is not set
	//   solroute.toml:4: endpoints[0].tier: must not be negative
	//   solroute.toml:6: endpoints[0].roles.read.request_timeout: is not a duration: want decimal numbers each with a unit (ns, us, ms, s, m or h), such as "250ms", "5s" or "1m30s"
	//   solroute.toml:7: endpoints[0].roles.read.requests_per_minute: unknown key
}

// One call builds the pool and the transport and wraps them in solana-go's
// client.
func ExampleNewSolanaClient() {
	// A stand-in for an RPC provider.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":"ok"}`, req.ID)
	}))
	defer srv.Close()

	doc := `[[endpoints]]
name = "provider"
url = "${RPC_URL}"
  [endpoints.roles.read]
  requests_per_second = 10
`
	lookup := func(name string) (string, bool) { return srv.URL, name == "RPC_URL" }
	cfg, err := config.Parse([]byte(doc), config.ParseOptions{LookupEnv: lookup})
	if err != nil {
		fmt.Println(err)
		return
	}
	rpcClient, client, err := config.NewSolanaClient(cfg, config.ClientOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	health, err := rpcClient.GetHealth(context.Background())
	fmt.Println(health, err)
	// Output: ok <nil>
}
