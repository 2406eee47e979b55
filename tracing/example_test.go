package tracing_test

import (
	"cmp"
	"context"
	"fmt"
	"log"
	"slices"
	"strings"

	"github.com/gagliardetto/solana-go/rpc"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/tracing"
)

// Trace a client's calls: the primary endpoint answers 503, the call
// fails over to the backup, and the trace shows both attempts under the
// call, under the caller's own span.
func ExampleInstrument() {
	// Stand-ins for two providers.
	primary := fixtures.NewServer(fixtures.Options{Name: "primary", Script: fixtures.Always(fixtures.Status(503, ""))})
	defer primary.Close()
	backup := fixtures.NewServer(fixtures.Options{Name: "backup"})
	defer backup.Close()

	c, err := solroute.New(solroute.Options{Endpoints: []solroute.Endpoint{
		{Name: "primary", URL: primary.URL(), Read: &endpoint.Limits{}},
		{Name: "backup", URL: backup.URL(), Tier: 1, Read: &endpoint.Limits{}},
	}})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	// A program sets up its SDK with an exporter to its collector (OTLP,
	// behind a batcher); this one keeps the spans in memory.
	exporter := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter))
	defer func() { _ = tp.Shutdown(context.Background()) }()

	tracing.Instrument(c, tracing.Options{TracerProvider: tp})

	ctx, span := tp.Tracer("bot").Start(context.Background(), "rebalance")
	if _, err := c.RPC().GetBalance(ctx, somePubkey, rpc.CommitmentConfirmed); err != nil {
		log.Fatal(err)
	}
	span.End()

	printTree(exporter.GetSpans())
	// Output:
	// rebalance
	//   getBalance (internal): attempts=2 ambiguous=false
	//     getBalance (client) #1 primary: temporary-http, HTTP 503, retry
	//     getBalance (client) #2 backup: none, HTTP 200, none
}

// printTree prints spans as a tree, children under their parent, the
// attempts in order, with a few attributes.
func printTree(spans tracetest.SpanStubs) {
	children := map[trace.SpanID][]tracetest.SpanStub{}
	var roots []tracetest.SpanStub
	for _, s := range spans {
		if s.Parent.IsValid() {
			children[s.Parent.SpanID()] = append(children[s.Parent.SpanID()], s)
		} else {
			roots = append(roots, s)
		}
	}
	var walk func(s tracetest.SpanStub, depth int)
	walk = func(s tracetest.SpanStub, depth int) {
		a := attrs(s)
		line := s.Name
		switch s.SpanKind {
		case trace.SpanKindInternal:
			if _, ok := a["solroute.attempts"]; ok {
				line += fmt.Sprintf(" (internal): attempts=%d ambiguous=%t", a["solroute.attempts"].AsInt64(), a["solroute.ambiguous"].AsBool())
			}
		case trace.SpanKindClient:
			line += fmt.Sprintf(" (client) #%d %s: %s, HTTP %d, %s", a["solroute.attempt"].AsInt64(), a["solroute.endpoint"].AsString(),
				a["solroute.cause"].AsString(), a["http.response.status_code"].AsInt64(), a["solroute.decision"].AsString())
		}
		fmt.Println(strings.Repeat("  ", depth) + line)
		kids := children[s.SpanContext.SpanID()]
		slices.SortFunc(kids, func(x, y tracetest.SpanStub) int {
			return cmp.Compare(attrs(x)["solroute.attempt"].AsInt64(), attrs(y)["solroute.attempt"].AsInt64())
		})
		for _, k := range kids {
			walk(k, depth+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
}
