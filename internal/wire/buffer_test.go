package wire

import "testing"

// TestBufferDropsOut: no Buffer keeps a caller's out after ParseDirect,
// nor after Put, and Put forgets an error object.
func TestBufferDropsOut(t *testing.T) {
	var p Buffers
	b := p.Get()
	b.ID = AppendID(b.ID, 1)
	var out struct{ Value uint64 }
	body := []byte(`{"jsonrpc":"2.0","result":{"value":7},"id":1}`)
	if sh, err := Scan(body, false); err != nil || !sh.Direct {
		t.Fatal("a plain result is not direct")
	}
	if fallback, err := ParseDirect(b, body, &out); fallback || err != nil || out.Value != 7 {
		t.Fatalf("ParseDirect: %v %v %+v", fallback, err, out)
	}
	if b.direct.Result != nil {
		t.Fatal("the buffer holds out after ParseDirect")
	}
	b.direct.Result = &out
	b.direct.Error = &Error{}
	b.Env.Error = &Error{}
	p.Put(b)
	if b.direct.Result != nil || b.direct.Error != nil || b.Env.Error != nil {
		t.Fatal("Put kept out or an error object")
	}
}
