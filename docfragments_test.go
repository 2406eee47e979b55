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

// fragmentParams are the free variables the documentation's fragments
// use, the fixed list a fragment may name without declaring, in the order
// of the parameters of the function each fragment becomes: each stands for
// what the prose around a fragment says the reader already has. As
// parameters rather than package variables, a fragment is compiled as a
// reader's own function body would be: "ctx := f(ctx)" is "no new
// variables", as it is there. pkgs are the packages of its type.
var fragmentParams = []struct{ name, typ, pkg string }{
	{"ctx", "context.Context", "context"}, // the caller's context
	{"c", "*solroute.Client", "solroute"}, // an open client
	{"err", "error", ""},                  // the error of the call before the fragment

	{"tx", "*solana.Transaction", "solana"},        // a signed transaction
	{"lastValidBlockHeight", "uint64", ""},         // the last block height tx's blockhash is valid at
	{"key", "solana.PublicKey", "solana"},          // an account
	{"urlA", "string", ""},                         // endpoint URLs (two providers, a public one)
	{"urlB", "string", ""},                         //
	{"urlPublic", "string", ""},                    //
	{"clock", "*clockwork.FakeClock", "clockwork"}, // a test's fake clock

	{"exp", "sdktrace.SpanExporter", "sdktrace"},   // an OpenTelemetry exporter (OTLP, stdout, ...)
	{"tp", "*sdktrace.TracerProvider", "sdktrace"}, // an OpenTelemetry SDK provider
}
