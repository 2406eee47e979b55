package config_test

import (
	"fmt"

	"github.com/solroute/solroute/config"
)

// A document is parsed with an injected environment into the settings of
// every package: what it leaves out keeps the defaults, what it sets is
// taken as written. The Document prints no secret.
func ExampleParse() {
	doc := `cluster = "mainnet-beta"
[retry]
max_retries = 0          # as written: no retries
[pool]
doubt_window = "10s"
[[endpoints]]
name = "primary"
url = "https://rpc.example/?api-key=${PROVIDER_KEY}"
  [endpoints.roles.read]
  requests_per_second = 50
`
	lookup := func(name string) (string, bool) { return "s3cr3t", name == "PROVIDER_KEY" }
	d, err := config.Parse([]byte(doc), config.ParseOptions{LookupEnv: lookup})
	if err != nil {
		fmt.Println(err)
		return
	}
	h, _ := d.ExpectedGenesisHash()
	fmt.Println(d.Endpoints[0].Name, d.Endpoints[0].URL, h)
	fmt.Println(d.Transport.Retry.MaxRetries, d.Transport.Retry.MaxBackoff, d.Pool.DoubtWindow, d.Pool.DoubtPatience)
	// Output:
	// primary [redacted] 5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d
	// 0 2s 10s 250ms
}

// Every problem is reported at once, with its line and key path, and no
// URL is ever quoted.
func ExampleValidationError() {
	doc := `[transport]
doubt_window = "30s"
[[endpoints]]
name = "primary"
url = "https://rpc.example/?api-key=${PROVIDER_KEY}"
tier = -1
  [endpoints.roles.read]
  request_timeout = "5 seconds"
  requests_per_secnd = 3000
`
	_, err := config.Parse([]byte(doc), config.ParseOptions{
		Filename:  "solroute.toml",
		LookupEnv: func(string) (string, bool) { return "", false },
	})
	fmt.Println(err)
	// Output:
	// config: solroute.toml: invalid configuration (5 problems):
	//   solroute.toml:2: transport.doubt_window: moved to [pool]
	//   solroute.toml:5: endpoints[0].url: environment variable PROVIDER_KEY is not set
	//   solroute.toml:6: endpoints[0].tier: must be 0 or more
	//   solroute.toml:8: endpoints[0].roles.read.request_timeout: is not a duration: want decimal numbers each with a unit (ns, us, ms, s, m or h), such as "250ms", "5s" or "1m30s"
	//   solroute.toml:9: endpoints[0].roles.read.requests_per_secnd: unknown key; did you mean requests_per_second?
}

// The registry a client routes by: the built-in one plus the document's
// [methods] tables.
func ExampleDocument_Registry() {
	doc := `[methods.getCompressedAccount]
role = "read"
class = "idempotent"
[[endpoints]]
name = "primary"
url = "https://rpc.example"
  [endpoints.roles.read]
`
	d, err := config.Parse([]byte(doc), config.ParseOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	reg, err := d.Registry(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	e, known := reg.Lookup("getCompressedAccount")
	fmt.Println(e.Role, e.Class, known)
	// Output: read idempotent true
}
