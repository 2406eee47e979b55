package tracing

import (
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/solroute/solroute/transport"
)

// The attribute keys. rpc.*, http.* follow OpenTelemetry's RPC and HTTP
// semantic conventions as of v1.37 (JSON-RPC: rpc.system "jsonrpc",
// rpc.jsonrpc.error_code); solroute.* are this package's. docs/tracing.md
// has the table.
const (
	keyRPCSystem     = attribute.Key("rpc.system")
	keyRPCMethod     = attribute.Key("rpc.method")
	keyJSONRPCCode   = attribute.Key("rpc.jsonrpc.error_code")
	keyHTTPStatus    = attribute.Key("http.response.status_code")
	keyRole          = attribute.Key("solroute.role")
	keyBatch         = attribute.Key("solroute.batch_size")
	keyAttempts      = attribute.Key("solroute.attempts")
	keyAmbiguous     = attribute.Key("solroute.ambiguous")
	keyCause         = attribute.Key("solroute.cause")
	keyEndpoint      = attribute.Key("solroute.endpoint")
	keyTier          = attribute.Key("solroute.tier")
	keyAttempt       = attribute.Key("solroute.attempt")
	keyHedge         = attribute.Key("solroute.hedge")
	keyWait          = attribute.Key("solroute.wait_ms")
	keyTimeout       = attribute.Key("solroute.timeout_ms")
	keyDispatch      = attribute.Key("solroute.dispatch")
	keyFault         = attribute.Key("solroute.fault")
	keyDecision      = attribute.Key("solroute.decision")
	keyRetryDelay    = attribute.Key("solroute.retry_delay_ms")
	keyProviderDelay = attribute.Key("solroute.provider_delay_ms")
	keyInDoubt       = attribute.Key("solroute.in_doubt")
)

// spanName is the name of a call's spans: its method when the client's
// registry knows it, else transport.OtherMethod (any string can reach a
// client as a method, and span names must stay few; rpc.method keeps the
// method's own name).
func spanName(call transport.CallInfo) string { return call.MethodLabel() }

// rpcSystem is rpc.system's value.
const rpcSystem = "jsonrpc"

// callAttributes are a call span's attributes known when it starts.
func callAttributes(call transport.CallInfo) []attribute.KeyValue {
	kv := []attribute.KeyValue{
		keyRPCSystem.String(rpcSystem),
		keyRPCMethod.String(call.Method),
		keyRole.String(call.Role.String()),
	}
	if call.Batch > 0 {
		kv = append(kv, keyBatch.Int(call.Batch))
	}
	return kv
}

// callEndAttributes are a call span's attributes known when it ends.
func callEndAttributes(r transport.CallResult) []attribute.KeyValue {
	return []attribute.KeyValue{
		keyAttempts.Int(r.Attempts),
		keyAmbiguous.Bool(r.Ambiguous),
		keyCause.String(r.Cause.String()),
	}
}

// attemptStartAttributes are an attempt span's attributes known when it
// starts. The RPC ones are repeated from the call's span: an attempt's
// span is the client span of one request, which a backend may read alone.
func attemptStartAttributes(call transport.CallInfo, a transport.Attempt) []attribute.KeyValue {
	return []attribute.KeyValue{
		keyRPCSystem.String(rpcSystem),
		keyRPCMethod.String(call.Method),
		keyEndpoint.String(a.Endpoint),
		keyTier.Int(a.Tier),
		keyAttempt.Int(a.Number),
		keyHedge.Bool(a.Hedge),
		keyWait.Float64(millis(a.Wait)),
	}
}

// attemptEndAttributes are an attempt span's attributes known when it
// ends; the numbers that are 0 when they do not apply (HTTP status,
// JSON-RPC code, delays, timeout) are left out then.
func attemptEndAttributes(a transport.Attempt) []attribute.KeyValue {
	kv := make([]attribute.KeyValue, 0, 10)
	kv = append(kv,
		keyDispatch.String(a.Dispatch.String()),
		keyCause.String(a.Cause.String()),
		keyDecision.String(a.Decision.Rule.String()),
		keyInDoubt.Bool(a.InDoubt),
	)
	if a.Fault != 0 {
		kv = append(kv, keyFault.String(a.Fault.String()))
	}
	if a.HTTPStatus != 0 {
		kv = append(kv, keyHTTPStatus.Int(a.HTTPStatus))
	}
	if a.RPCCode != 0 {
		kv = append(kv, keyJSONRPCCode.Int(a.RPCCode))
	}
	if a.Timeout > 0 {
		kv = append(kv, keyTimeout.Float64(millis(a.Timeout)))
	}
	if a.Decision.Retry && a.Decision.Delay > 0 {
		kv = append(kv, keyRetryDelay.Float64(millis(a.Decision.Delay)))
	}
	if a.ProviderDelay > 0 {
		kv = append(kv, keyProviderDelay.Float64(millis(a.ProviderDelay)))
	}
	return kv
}

// millis is d in milliseconds.
func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
