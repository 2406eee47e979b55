package solroute_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/metrics"
	"github.com/solroute/solroute/tracing"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestBulkObserved: a bulk read of 1000 keys (10 chunks), one chunk
// failing everywhere. Each chunk is a call to the Observers: protocol
// holds, a CallRecord under the context has one call per chunk ask, the
// metrics count as many calls and attempts as the record, and there is a
// call span per chunk.
func TestBulkObserved(t *testing.T) {
	const n = 1000
	bad := failKey(bulkKey(550)) // chunk 5, everywhere
	scripts := []fixtures.Script{bad, bad, bad}
	fx := newBulkFixture(t, newFront(0, 0), n, []uint64{0, 0, 0}, scripts)
	proto := &protocolObserver{}
	fx.client.Observe(proto)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(metrics.New(fx.client, metrics.Options{}))
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	tracing.Instrument(fx.client, tracing.Options{TracerProvider: tp})

	var rec solroute.CallRecord
	ctx := solroute.WithObserver(context.Background(), &rec)
	res, err := fx.client.GetMultipleAccountsBulk(ctx, bulkKeys(n), solroute.BulkOptions{InFlight: 4, Commitment: rpc.CommitmentProcessed})
	var be *solroute.BulkError
	if !errors.As(err, &be) || len(be.Failed) != 1 || be.Failed[0].Start != 500 {
		t.Fatalf("err %v, want a BulkError for chunk 500-599", err)
	}
	checkAccounts(t, res.Value, n, [2]int{500, 600})
	proto.check(t, "GetMultipleAccountsBulk")

	calls := rec.Calls()
	attempts, failed := 0, 0
	for _, c := range calls {
		if c.Method != "getMultipleAccounts" {
			t.Errorf("recorded call %q", c.Method)
		}
		attempts += len(c.Attempts)
		if c.Err != nil {
			failed++
		}
	}
	t.Logf("%d calls recorded, %d attempts, %d failed", len(calls), attempts, failed)
	if len(calls) != 10 || failed != 1 {
		t.Errorf("CallRecord: %d calls (%d failed), want 10 chunks, 1 failed", len(calls), failed)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var mc, ma float64
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			switch mf.GetName() {
			case "solroute_calls_total":
				mc += m.GetCounter().GetValue()
			case "solroute_attempts_total":
				ma += m.GetCounter().GetValue()
			}
		}
	}
	if int(mc) != len(calls) || int(ma) != attempts {
		t.Errorf("metrics: %v calls, %v attempts; CallRecord %d calls, %d attempts", mc, ma, len(calls), attempts)
	}
	_ = testutil.ToFloat64
	callSpans, attemptSpans := 0, 0
	for _, s := range sr.Ended() {
		if s.Parent().IsValid() && s.SpanKind().String() == "client" {
			attemptSpans++
		} else {
			callSpans++
		}
	}
	if callSpans != len(calls) || attemptSpans != attempts {
		t.Errorf("spans: %d call spans, %d attempt spans; want %d and %d", callSpans, attemptSpans, len(calls), attempts)
	}
}

// TestBulkStatusesAndTransactionsObserved: the two other bulk
// reads keep the Observer protocol, one call per chunk.
func TestBulkStatusesAndTransactionsObserved(t *testing.T) {
	fx := newBulkFixture(t, newFront(0, 0), 0, []uint64{0, 0, 0}, make([]fixtures.Script, 3))
	proto := &protocolObserver{}
	fx.client.Observe(proto)
	sigs := make([]solana.Signature, 600)
	for i := range sigs {
		sigs[i][0], sigs[i][1], sigs[i][63] = byte(i), byte(i>>8), 1
	}
	var rec solroute.CallRecord
	ctx := solroute.WithObserver(context.Background(), &rec)
	if _, err := fx.client.GetSignatureStatusesBulk(ctx, sigs, solroute.BulkOptions{}); err != nil {
		t.Fatal(err)
	}
	proto.check(t, "GetSignatureStatusesBulk")
	if n := len(rec.Calls()); n != 3 {
		t.Errorf("%d calls recorded for 3 chunks", n)
	}
	if _, err := fx.client.GetTransactionsBulk(ctx, sigs[:20], solroute.BulkOptions{}); err != nil {
		t.Fatal(err)
	}
	proto.check(t, "GetTransactionsBulk")
	if n := len(rec.Calls()); n != 23 {
		t.Errorf("%d calls recorded, want 3 + 20", n)
	}
}
