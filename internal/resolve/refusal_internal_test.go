package resolve

import (
	"context"
	"errors"
	"testing"

	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/transport"
)

// TestOneSendsRefusalIsClassifiedAsBefore: for one send (a
// *transport.CallError: Errs = the last attempt's error, then context
// errors, then ErrAmbiguousDispatch when ambiguous) anyRefusal(err, is)
// agrees with the pre-b6309df is(err) (errors.As: the first RPCError in
// the tree), for both predicates; they differ only on a fan-out's join
// whose match is not the first copy's.
func TestOneSendsRefusalIsClassifiedAsBefore(t *testing.T) {
	processed := &transport.RPCError{Code: -32002, Message: "Transaction simulation failed: This transaction has already been processed", Data: []byte(`{"err":"AlreadyProcessed"}`)}
	bnf := &transport.RPCError{Code: -32002, Message: "Transaction simulation failed: Blockhash not found", Data: []byte(`{"err":"BlockhashNotFound"}`)}
	behind := &transport.RPCError{Code: -32005, Message: "Node is behind by 42 slots"}
	one := func(errs ...error) error { return &transport.CallError{Method: "sendTransaction", Errs: errs} }
	for name, err := range map[string]error{
		"processed":           one(processed),
		"bnf":                 one(bnf),
		"behind":              one(behind),
		"processed, canceled": one(processed, context.Canceled),
		"bnf, deadline":       one(bnf, context.DeadlineExceeded),
		"ambiguous":           &transport.CallError{Method: "sendTransaction", Ambiguous: true, Errs: []error{behind, engine.ErrAmbiguousDispatch}},
		"context only":        one(context.Canceled),
		"plain RPCError":      processed,
	} {
		for pname, is := range map[string]func(error) bool{"alreadyProcessed": alreadyProcessed, "blockhashNotFound": blockhashNotFound} {
			if got, was := anyRefusal(err, is), is(err); got != was {
				t.Errorf("%s, %s: anyRefusal %v, before %v", name, pname, got, was)
			}
		}
	}
	// The fan-out's join: the case b6309df changed (a's -32005 first).
	join := errors.Join(one(behind), one(bnf))
	if !anyRefusal(join, blockhashNotFound) || blockhashNotFound(join) {
		t.Errorf("join: anyRefusal %v, before %v", anyRefusal(join, blockhashNotFound), blockhashNotFound(join))
	}
}
