// Package tracing makes OpenTelemetry spans of a solroute client's calls:
// one span per call and, under it, one span per attempt, so a trace shows
// which endpoints a call tried, in what order, how long each took and why
// each stopped.
//
// It plugs into a built client through its Observers (Client.Observe, see
// transport.Observer):
//
//	c, _ := solroute.Open("rpc.toml")
//	tracing.Instrument(c, tracing.Options{TracerProvider: tp})
//
// Every call made from then on, through any entry point (solana-go's
// client from RPC(), the typed calls, batches, raw calls), gets a span.
//
// # Spans
//
// A call's span is named after its JSON-RPC method ("getBalance"; "batch"
// for a batch; "other" for a method the client's registry does not know,
// so that span names stay few), has kind internal, and continues the
// trace of the context the call was made with: it is a child of the
// caller's span. Each attempt's span is a child of the call's, named
// after the method too, with kind client: it is the request to one
// endpoint. The attempts of a hedged pair overlap. A call the pool
// admitted nowhere has no attempt span.
//
// The attributes (docs/tracing.md has the table) name endpoints by their
// Name only: what the spans are built from holds no URL and no header
// value (see transport.Observer), and the error recorded on a failed
// call's span is the client's *CallError, which is secret-free by
// construction.
//
// Background requests (the cluster guard's getGenesisHash, the slot
// probe's getSlot) are not calls and have no span. No trace header is
// sent to providers: the spans stay in this process.
//
// # Cost
//
// With no TracerProvider installed (the global one is a no-op until the
// program sets one) a call costs a few allocations more than without
// tracing: the no-op spans and the contexts carrying them. On trace/noop's
// provider (tracing turned off) a call costs none: the Observer starts a
// span only where noop's would change the call's context. Attributes are
// built only for spans that record: a sampler sees a span's name and kind
// only, and the name is the method.
//
// Spans live in the contexts the Observer returns (as OpenTelemetry
// wants), never in a map: the package keeps no state of its own.
package tracing
