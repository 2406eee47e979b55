package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/solroute/solroute/fixtures"
)

// One call through the pool: the JSON result on stdout, exit code 0.
func Example_call() {
	s := fixtures.NewServer(fixtures.Options{}) // a fake endpoint on loopback
	defer s.Close()
	dir, err := os.MkdirTemp("", "solroute-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	cfg := filepath.Join(dir, "rpc.toml")
	doc := fmt.Sprintf("[[endpoints]]\nname = \"local\"\nurl = %q\n  [endpoints.roles.read]\n", s.URL())
	if err := os.WriteFile(cfg, []byte(doc), 0o600); err != nil {
		panic(err)
	}

	code := run(context.Background(),
		[]string{"call", "--config", cfg, "getBalance", `["11111111111111111111111111111111"]`},
		os.Stdout, os.Stderr)
	fmt.Println("exit code", code)
	// Output:
	// {"context":{"apiVersion":"2.2.14","slot":345678901},"value":2039280}
	// exit code 0
}

// A usage error is one line on stderr and exit code 2.
func Example_usageError() {
	code := run(context.Background(), []string{"probe", "--config", "rpc.toml", "--address", "not-a-key"}, os.Stdout, os.Stdout)
	fmt.Println("exit code", code)
	// Output:
	// solroute probe: invalid --address "not-a-key": not a base-58 encoded 32-byte key: decode: invalid base58 digit ('-') (see 'solroute probe --help')
	// exit code 2
}
