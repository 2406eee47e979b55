package solroute_test

// fragmentImports is the fixed table of the package names a documentation
// fragment may use without importing them, each from a module go.mod
// requires (or the standard library). A fragment naming a package outside
// it does not compile: add the name here, or write the block as a whole
// file with its own imports.
var fragmentImports = map[string]string{
	"solroute":    "github.com/solroute/solroute",
	"config":      "github.com/solroute/solroute/config",
	"confirm":     "github.com/solroute/solroute/confirm",
	"endpoint":    "github.com/solroute/solroute/endpoint",
	"fixtures":    "github.com/solroute/solroute/fixtures",
	"methods":     "github.com/solroute/solroute/methods",
	"metrics":     "github.com/solroute/solroute/metrics",
	"pool":        "github.com/solroute/solroute/pool",
	"redislimit":  "github.com/solroute/solroute/redislimit",
	"retrypolicy": "github.com/solroute/solroute/retrypolicy",
	"tracing":     "github.com/solroute/solroute/tracing",
	"transport":   "github.com/solroute/solroute/transport",

	"solana":  "github.com/gagliardetto/solana-go",
	"rpc":     "github.com/gagliardetto/solana-go/rpc",
	"jsonrpc": "github.com/gagliardetto/solana-go/rpc/jsonrpc",
	"ws":      "github.com/gagliardetto/solana-go/rpc/ws",

	"clockwork":  "github.com/jonboulle/clockwork",
	"prometheus": "github.com/prometheus/client_golang/prometheus",
	"promhttp":   "github.com/prometheus/client_golang/prometheus/promhttp",
	"redis":      "github.com/redis/go-redis/v9",
	"otel":       "go.opentelemetry.io/otel",
	"sdktrace":   "go.opentelemetry.io/otel/sdk/trace",
	"trace":      "go.opentelemetry.io/otel/trace",
	"rate":       "golang.org/x/time/rate",

	"context": "context",
	"errors":  "errors",
	"fmt":     "fmt",
	"http":    "net/http",
	"log":     "log",
	"os":      "os",
	"slog":    "log/slog",
	"time":    "time",
}

// fragmentVars is the other file of package frag: the free variables the
// documentation's fragments use, the fixed list a fragment may name
// without declaring. Each stands for what the prose around a fragment
// says the reader already has.
const fragmentVars = `package frag

import (
	"context"

	"github.com/gagliardetto/solana-go"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

var (
	ctx context.Context     // the caller's context
	c   *solroute.Client    // an open client
	err error               // the error of the call before the fragment

	tx                   *solana.Transaction // a signed transaction
	lastValidBlockHeight uint64              // the last block height tx's blockhash is valid at
	key                  solana.PublicKey    // an account

	urlA, urlB, urlPublic string // endpoint URLs (two providers, a public one)

	clock *clockwork.FakeClock // a test's fake clock

	exp sdktrace.SpanExporter       // an OpenTelemetry exporter (OTLP, stdout, ...)
	tp  *sdktrace.TracerProvider    // an OpenTelemetry SDK provider
)
`
