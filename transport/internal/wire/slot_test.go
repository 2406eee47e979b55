package wire

import "testing"

func TestContextSlot(t *testing.T) {
	for _, tc := range []struct {
		body string
		slot uint64
		ok   bool
	}{
		{`{"jsonrpc":"2.0","result":{"context":{"apiVersion":"2.1.0","slot":341197053},"value":1},"id":1}`, 341197053, true},
		{`{"id":1,"result":{"value":{"data":["a\"}{","base64"]},"context":{"slot":7}},"jsonrpc":"2.0"}`, 7, true},
		{` { "result" : { "context" : { "slot" : 12 } } } `, 12, true},
		{`{"jsonrpc":"2.0","result":{"context":{"slot":-1},"value":1},"id":1}`, 0, false},
		{`{"jsonrpc":"2.0","result":{"context":{"slot":1.5},"value":1},"id":1}`, 0, false},
		{`{"jsonrpc":"2.0","result":{"context":{"slot":"9"},"value":1},"id":1}`, 0, false},
		{`{"jsonrpc":"2.0","result":{"context":{"slot":18446744073709551616}},"id":1}`, 0, false},
		{`{"jsonrpc":"2.0","result":{"context":{"slot":01}},"id":1}`, 0, false},
		{`{"jsonrpc":"2.0","result":5,"id":1}`, 0, false},
		{`{"jsonrpc":"2.0","result":{"value":{"context":{"slot":3}}},"id":1}`, 0, false},
		{`{"jsonrpc":"2.0","error":{"code":-32016,"message":"m","data":{"contextSlot":5}},"id":1}`, 0, false},
		{`{"jsonrpc":"2.0","result":{"context":{"slot":12`, 12, true}, // truncated after the number: the scanner stops there
		{`{"jsonrpc":"2.0","result":{"context":{"slot"`, 0, false},
		{`[]`, 0, false},
		{``, 0, false},
	} {
		slot, ok := ContextSlot([]byte(tc.body))
		if slot != tc.slot || ok != tc.ok {
			t.Errorf("ContextSlot(%s) = %d, %v; want %d, %v", tc.body, slot, ok, tc.slot, tc.ok)
		}
	}
}

func TestResultSlot(t *testing.T) {
	if s, ok := ResultSlot([]byte(`{"jsonrpc":"2.0","result":341197053,"id":1}`)); !ok || s != 341197053 {
		t.Errorf("got %d, %v", s, ok)
	}
	if _, ok := ResultSlot([]byte(`{"jsonrpc":"2.0","result":{"context":{"slot":1}},"id":1}`)); ok {
		t.Error("an object is not a slot")
	}
}

func TestErrorContextSlot(t *testing.T) {
	if s, ok := ErrorContextSlot([]byte(` {"contextSlot": 940} `)); !ok || s != 940 {
		t.Errorf("got %d, %v", s, ok)
	}
	if _, ok := ErrorContextSlot([]byte(`null`)); ok {
		t.Error("null has no slot")
	}
}
