package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/transport"
)

// benchCommitment is the commitment of every getBalance of the workload:
// confirmed, what a bot reading balances usually asks for, explicit in
// every request.
const benchCommitment = string(rpc.CommitmentConfirmed)

// client is one way of calling the cluster. Its methods are safe for
// concurrent use.
type client interface {
	// getBalance calls getBalance at benchCommitment for a fixed account,
	// decodes the result and returns its context slot.
	getBalance(ctx context.Context) (slot uint64, err error)
	// sendTransaction sends one signed transaction, base64 wire bytes.
	sendTransaction(ctx context.Context, tx string) error
	// close releases the client's connections.
	close()
}

// clientKind describes one client of the comparison.
type clientKind struct {
	name string
	// about says what the client is, for the report.
	about string
	// single is true for clients configured with one endpoint ("a").
	single bool
	// open opens the client on urls ("a" first). A client that can see
	// which endpoint answered an attempt (solroute's OnAttempt) reports
	// the answers of "a" to w; the others ignore it.
	open func(urls []string, o *Options, w *answerWatch) (client, error)
}

// clientKinds lists every client, in report order.
func clientKinds() []clientKind {
	return []clientKind{
		{
			name:   "net/http",
			about:  "raw net/http to one endpoint: POST prebuilt bytes, encoding/json decode, no retry (the floor); its Transport keeps one idle connection per caller",
			single: true,
			open: func(urls []string, o *Options, _ *answerWatch) (client, error) {
				return newRawClient(urls[:1], o.Callers), nil
			},
		},
		{
			name:   "solana-go",
			about:  "solana-go v1.14.0 rpc.New(url): what users have today (one endpoint, no retry, 9 connections per host)",
			single: true,
			open: func(urls []string, _ *Options, _ *answerWatch) (client, error) {
				return newSolanaGoClient(urls[0]), nil
			},
		},
		{
			name:   "retryablehttp",
			about:  "solana-go over go-retryablehttp v0.7.8 NewClient() defaults (one endpoint, 4 retries, 1 s to 30 s backoff, retries POST), logger off",
			single: true,
			open: func(urls []string, _ *Options, _ *answerWatch) (client, error) {
				return newRetryableClient(urls[0]), nil
			},
		},
		{
			name:  "round-robin",
			about: "raw net/http rotating over the three endpoints, no retry",
			open: func(urls []string, o *Options, _ *answerWatch) (client, error) {
				return newRawClient(urls, o.Callers), nil
			},
		},
		{
			name:  "solroute",
			about: "solana-go over solroute's transport: the three endpoints in one tier, unlimited rates, default settings (retry policy; slot tracking on: lag-aware routing, pool.Settings.MaxSlotLag 16, and monotonic reads)",
			open:  newSolrouteClient,
		},
		{
			name:  typed,
			about: "solroute's own typed calls (Client.GetBalance, and CallForInto for sends) over the same pool and settings as solroute, without solana-go's rpc.Client above it: its requests are written by solroute's encoder, as round-robin's are prebuilt bytes, so the two compare the pool's machinery alone (issue 22)",
			open:  newTypedClient,
		},
		{
			name:  trackingOff,
			about: "solroute with slot tracking off (pool.Settings.MaxSlotLag = 0, transport.Settings.MonotonicReads = false): issue 13's mechanism off, to show what it costs and what it prevents",
			open: func(urls []string, o *Options, w *answerWatch) (client, error) {
				ps, ts := pool.DefaultSettings(), transport.DefaultSettings()
				ps.MaxSlotLag, ts.MonotonicReads = 0, false
				return openSolroute(urls, o, ps, ts, w)
			},
		},
		{
			name:  "solroute-hedged",
			about: "solroute with hedged reads (transport.Settings.HedgeAfter = 50 ms, plan 006): a read without an answer after 50 ms is also sent to another endpoint",
			open: func(urls []string, o *Options, w *answerWatch) (client, error) {
				s := transport.DefaultSettings()
				s.HedgeAfter = benchHedgeAfter
				return openSolroute(urls, o, pool.DefaultSettings(), s, w)
			},
		},
		{
			name:  observed,
			about: "solroute with the Prometheus collector (package metrics, registered on a registry of its own) and OpenTelemetry tracing (package tracing) on an SDK TracerProvider that samples every span and batches them to an exporter that discards them: issue 15's instrumentation at its full cost",
			open:  openObserved,
		},
		{
			name:  observedNoop,
			about: "solroute with the Prometheus collector and tracing instrumented on a no-op TracerProvider (what a program that installed no OpenTelemetry SDK pays): issue 15's instrumentation when nothing records spans",
			open:  openObservedNoop,
		},
		{
			name:  "solroute-fixed",
			about: "solroute with the attempt timeout of before issue 14 (transport.Settings.AttemptTimeout = half the call's timeout, for every attempt): the baseline of the adaptive timeouts, measured in the same run",
			open: func(urls []string, o *Options, w *answerWatch) (client, error) {
				s := transport.DefaultSettings()
				s.AttemptTimeout = o.CallTimeout / 2
				return openSolroute(urls, o, pool.DefaultSettings(), s, w)
			},
		},
		{
			name:  "solroute-auto",
			about: "solroute with hedge_after = \"auto\" (transport.HedgeAuto, plan 010): a read is also sent to another endpoint after its endpoint's recent p95 (at least 20 ms)",
			open: func(urls []string, o *Options, w *answerWatch) (client, error) {
				s := transport.DefaultSettings()
				s.HedgeAfter = transport.HedgeAuto
				return openSolroute(urls, o, pool.DefaultSettings(), s, w)
			},
		},
	}
}

// typed is the client that calls solroute's typed calls directly.
const typed = "solroute-typed"

// trackingOff is the client that runs solroute with slot tracking off.
const trackingOff = "solroute-untracked"

// observed is the client that runs solroute with metrics and tracing
// that records every span; observedNoop the same with a no-op tracer.
const (
	observed     = "solroute-observed"
	observedNoop = "solroute-metrics"
)

// benchHedgeAfter is the solroute-hedged client's HedgeAfter: above the
// healthy loopback p99.9 of 64 callers on two cores (tens of
// milliseconds), so that hedges fire on faults, not on load.
const benchHedgeAfter = 50 * time.Millisecond

// ClientNames lists every client name, in report order: net/http,
// solana-go, retryablehttp, round-robin, solroute, solroute-untracked,
// solroute-hedged, solroute-observed, solroute-metrics, solroute-fixed,
// solroute-auto.
func ClientNames() []string {
	kinds := clientKinds()
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.name
	}
	return names
}

func clientNamed(name string) (clientKind, error) {
	for _, k := range clientKinds() {
		if k.name == name {
			return k, nil
		}
	}
	return clientKind{}, fmt.Errorf("bench: unknown client %q (want one of %v)", name, ClientNames())
}

// outcome is how one call ended.
type outcome uint8

const (
	succeeded outcome = iota
	failed
	// ambiguous: a send the client reported as maybe delivered and not
	// resent (solroute.ErrAmbiguousDispatch).
	ambiguous
)

func outcomeOf(err error) outcome {
	switch {
	case err == nil:
		return succeeded
	case errors.Is(err, solroute.ErrAmbiguousDispatch):
		return ambiguous
	}
	return failed
}
