package wire

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestScanSlot(t *testing.T) {
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
		{`{"jsonrpc":"2.0","result":5,"id":1}`, 0, false},
		{`{"jsonrpc":"2.0","result":{"value":{"context":{"slot":3}}},"id":1}`, 0, false},
		{`{"jsonrpc":"2.0","result":{"context":null,"value":1},"id":1}`, 0, false},
		{`{"jsonrpc":"2.0","error":{"code":-32016,"message":"m","data":{"contextSlot":5}},"id":1}`, 0, false},
		{`[]`, 0, false},
		{``, 0, false},
	} {
		sh, err := Scan([]byte(tc.body), true)
		if err != nil || sh.Slot != tc.slot || sh.HasSlot != tc.ok {
			t.Errorf("Scan(%s) = %d, %v, %v; want %d, %v", tc.body, sh.Slot, sh.HasSlot, err, tc.slot, tc.ok)
		}
	}
}

func TestScanResultSlot(t *testing.T) {
	if sh, err := Scan([]byte(`{"jsonrpc":"2.0","result":341197053,"id":1}`), true); err != nil || !sh.HasValue || sh.Value != 341197053 {
		t.Errorf("got %+v, %v", sh, err)
	}
	if sh, _ := Scan([]byte(`{"jsonrpc":"2.0","result":{"context":{"slot":1}},"id":1}`), true); sh.HasValue {
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

func TestWithMinContextSlot(t *testing.T) {
	enc := func(params []any) []byte {
		b, err := EncodeRequest(7, "getBalance", params)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name   string
		params []any
		i      int
		want   string // the params array after, "" for not ok
	}{
		{"appended", []any{"pk"}, 1, `["pk",{"minContextSlot":42}]`},
		{"appended to empty", []any{}, 0, `[{"minContextSlot":42}]`},
		{"nil params", nil, 0, `[{"minContextSlot":42}]`},
		{"nil params, index 1", nil, 1, ``},
		{"into an object", []any{"pk", map[string]any{"commitment": "confirmed"}}, 1, `["pk",{"minContextSlot":42,"commitment":"confirmed"}]`},
		{"into an empty object", []any{"pk", map[string]any{}}, 1, `["pk",{"minContextSlot":42}]`},
		{"over an explicit 0", []any{"pk", map[string]any{"commitment": "confirmed", "minContextSlot": 0}}, 1,
			`["pk",{"commitment":"confirmed","minContextSlot":42}]`},
		{"over the only member", []any{"pk", map[string]any{"minContextSlot": 0}}, 1, `["pk",{"minContextSlot":42}]`},
		{"in place of null", []any{"pk", nil}, 1, `["pk",{"minContextSlot":42}]`},
		{"first of several", []any{map[string]any{"a": "}]\""}, "x"}, 0, `[{"minContextSlot":42,"a":"}]\""},"x"]`},
		{"not an object", []any{"pk", "x"}, 1, ``},
		{"too short", []any{"pk"}, 2, ``},
	} {
		// The splice works in the request's spare room (EncodeRequest's)
		// and, in a full array, in a copy.
		for _, full := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/full=%v", tc.name, full), func(t *testing.T) {
				body := enc(tc.params)
				if full {
					body = body[:len(body):len(body)]
				}
				before := string(body)
				out, ok := WithMinContextSlot(body, tc.i, 42)
				if tc.want == "" {
					if ok || string(out) != before {
						t.Fatalf("ok %v, out %s", ok, out)
					}
					return
				}
				var got struct {
					Params json.RawMessage `json:"params"`
					ID     int
					Method string
				}
				if !ok || json.Unmarshal(out, &got) != nil || string(got.Params) != tc.want || got.ID != 7 || got.Method != "getBalance" {
					t.Fatalf("ok %v, out %s", ok, out)
				}
			})
		}
	}
}
