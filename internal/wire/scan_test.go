package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"testing"
)

// scanSeeds are responses that Scan must judge: clean, both members,
// duplicate and case-variant keys at every level it reads, nulls, and
// bodies that break off.
var scanSeeds = []string{
	`{"jsonrpc":"2.0","result":{"context":{"apiVersion":"2.2.14","slot":345678901},"value":2039280},"id":1}`,
	`{"jsonrpc":"2.0","id":1,"result":"5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW","error":{"code":429,"message":"Too many requests"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"x"},"result":"sig"}`,
	`{"jsonrpc":"2.0","id":1,"result":null,"error":{"code":-32602,"message":"bad"}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"value":1},"error":null}`,
	`{"jsonrpc":"2.0","id":1,"result":null,"error":null}`,
	`{"jsonrpc":"2.0","id":1,"error":null}`,
	`{"jsonrpc":"2.0","id":1}`,
	`{"jsonrpc":"2.0","id":1,"result":1,"result":2}`,
	`{"jsonrpc":"2.0","id":1,"result":"sig","result":null,"error":{"code":429}}`,
	`{"jsonrpc":"2.0","id":1,"Result":1}`,
	`{"jsonrpc":"2.0","id":1,"result":1,"RESULT":2}`,
	`{"jsonrpc":"2.0","id":1,"re\u0073ult":1}`,
	`{"jsonrpc":"2.0","id":1,"reſult":1}`,
	`{"jsonrpc":"2.0","id":1,"result":1,"Error":{"code":429}}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"result":1}`,
	`{"jsonrpc":"2.0","ID":1,"result":1}`,
	`{"jsonrpc":"2.0","JSONRPC":"2.0","id":1,"result":1}`,
	`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":2000},"context":{"slot":1000},"value":1}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":2000},"Context":{"slot":1000},"value":1}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"Context":{"slot":1000},"value":1}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":2000,"slot":1000},"value":1}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":2000,"Slot":1000},"value":1}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"context":{"ſlot":1000},"value":1}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":2000},"value":1,"value":2}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":2000},"VALUE":1}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":01}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":7}},"pad":"\u0072esult"}`,
	`{"jsonrpc":"2.0","id":1,"result":{"value":{"context":{"slot":3},"context":1}}}`,
	`{"jsonrpc":"2.0","id":1,"result":[{"context":1,"context":2}]}`,
	`{"jsonrpc":"2.0","id":1,"result":7}`,
	`{"jsonrpc":"2.0","result":{"context":{"slot":12`,
	`{"jsonrpc":"2.0","result":{"context":{"slot"`,
	`{"result":1} x`,
	`{}`, ` {} `, `[]`, `null`, ``, `"x"`, `{"a"}`, `{"a":}`, `{,}`,
}

// errorSeeds are error objects whose code, message or data can be read
// two ways (repeated, re-cased, escaped, folded), and some that cannot.
var errorSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"m","data":{"x":1}}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"m","code":-32005}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"m","Code":-32005}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"Code":-32005,"message":"m"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"co\u0064e":-32005}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"m","message":"n"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"MESSAGE":"n"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"data":1,"data":2}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"data":1,"Data":2}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"meſſage":"n"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"data":{"code":1,"code":2,"Code":3}}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"codes":1,"cod":2,"msg":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{}}`,
	`{"jsonrpc":"2.0","id":null,"result":null,"error":{"code":429,"Code":-32005}}`,
	`{"jsonrpc":"2.0","id":1,"result":"sig","error":{"code":429,"code":-32005}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"code"`,
	`{"jsonrpc":"2.0","id":1,"error":"code"}`,
}

func TestScan(t *testing.T) {
	rep := func(p string) error { return &MemberError{Path: p, Repeated: true} }
	vari := func(p string) error { return &MemberError{Path: p} }
	for _, tc := range []struct {
		body   string
		slots  bool
		err    error
		direct bool
	}{
		{scanSeeds[0], true, nil, true},
		{scanSeeds[1], false, ErrResultAndError, false},
		{scanSeeds[2], false, ErrResultAndError, false},
		{scanSeeds[3], false, nil, false}, // JSON-RPC 1.0's null result beside an error: the error
		{scanSeeds[4], false, nil, false}, // and its null error beside a result: the result
		{scanSeeds[5], false, nil, false},
		{scanSeeds[6], false, nil, false},
		{scanSeeds[7], false, nil, false}, // neither: ParseScanned's ErrNoResultOrError
		{scanSeeds[8], false, rep("result"), false},
		{scanSeeds[9], false, rep("result"), false},
		{scanSeeds[10], false, vari("result"), false},
		{scanSeeds[11], false, vari("result"), false},
		{scanSeeds[12], false, vari("result"), false},
		{scanSeeds[13], false, vari("result"), false},
		{scanSeeds[14], false, vari("error"), false},
		{scanSeeds[15], false, rep("id"), false},
		{scanSeeds[16], false, vari("id"), false},
		{scanSeeds[17], false, vari("jsonrpc"), false},
		{scanSeeds[18], true, rep("result.context"), false},
		{scanSeeds[18], false, nil, true}, // without slots the result is not read
		{scanSeeds[19], true, vari("result.context"), false},
		{scanSeeds[20], true, vari("result.context"), false},
		{scanSeeds[21], true, rep("result.context.slot"), false},
		{scanSeeds[22], true, vari("result.context.slot"), false},
		{scanSeeds[23], true, vari("result.context.slot"), false},
		{scanSeeds[24], true, rep("result.value"), false},
		{scanSeeds[25], true, vari("result.value"), false},
		{scanSeeds[26], true, nil, true},
		{scanSeeds[27], true, nil, true}, // an escape in a value is no member
		{scanSeeds[28], true, nil, true}, // nor is a key inside the value
		{scanSeeds[29], true, nil, true},
		{scanSeeds[30], true, nil, true},
		{scanSeeds[31], true, ErrNotJSONRPC, false},
		{scanSeeds[32], true, ErrNotJSONRPC, false},
		{scanSeeds[33], false, ErrNotJSONRPC, false},
		{`{}`, false, nil, false},
		{`[]`, false, nil, false},
		{`{"a"}`, false, ErrNotJSONRPC, false},
	} {
		sh, err := Scan([]byte(tc.body), tc.slots)
		if fmt.Sprint(err) != fmt.Sprint(tc.err) || sh.Direct != tc.direct {
			t.Errorf("Scan(%s, %v) = %+v, %v; want direct %v, %v", tc.body, tc.slots, sh, err, tc.direct, tc.err)
		}
	}
}

func TestScanBatch(t *testing.T) {
	for _, tc := range []struct {
		body string
		err  error
	}{
		{`[{"jsonrpc":"2.0","id":0,"result":1},{"jsonrpc":"2.0","id":1,"error":{"code":-32005}}]`, nil},
		{`[{"jsonrpc":"2.0","id":0,"result":"sig","error":{"code":429}}]`, ErrResultAndError},
		{`[{"id":0,"result":1},{"id":1,"result":2,"Error":{"code":429}}]`, &MemberError{Path: "error"}},
		{`[{"id":0,"id":1,"result":1}]`, &MemberError{Path: "id", Repeated: true}},
		{`[{"id":0,"result":null,"error":{"code":429}}]`, nil},
		{` [ null , 1 , {"id":0,"result":1} ] `, nil},
		{`{"id":0,"result":1}`, nil},
		{`[`, nil},
	} {
		if err := ScanBatch([]byte(tc.body)); fmt.Sprint(err) != fmt.Sprint(tc.err) {
			t.Errorf("ScanBatch(%s) = %v, want %v", tc.body, err, tc.err)
		}
	}
}

// TestScanErrorMembers: an error object's code, message and data are
// held to the envelope's rule, on a single answer and on each member of a
// batch; keys inside data, and other keys, are left alone.
func TestScanErrorMembers(t *testing.T) {
	rep := func(p string) error { return &MemberError{Path: p, Repeated: true} }
	vari := func(p string) error { return &MemberError{Path: p} }
	for i, want := range []error{
		nil,
		rep("error.code"),
		vari("error.code"),
		vari("error.code"),
		vari("error.code"), // an escape
		rep("error.message"),
		vari("error.message"),
		rep("error.data"),
		vari("error.data"),
		vari("error.message"), // ſ folds to s
		nil,                   // inside data
		nil,                   // keys that name none
		nil,
		vari("error.code"), // beside a null result, for an id-less error
		rep("error.code"),  // malformed whichever way: the error is read first
		ErrNotJSONRPC,
		nil, // not an object: left to the decoder
	} {
		body := errorSeeds[i]
		for _, slots := range []bool{false, true} {
			if _, err := Scan([]byte(body), slots); fmt.Sprint(err) != fmt.Sprint(want) {
				t.Errorf("Scan(%s, %v) = %v, want %v", body, slots, err, want)
			}
		}
		if want == ErrNotJSONRPC {
			continue
		}
		batch := `[{"jsonrpc":"2.0","id":0,"result":1},` + body + `]`
		if err := ScanBatch([]byte(batch)); fmt.Sprint(err) != fmt.Sprint(want) {
			t.Errorf("ScanBatch(%s) = %v, want %v", batch, err, want)
		}
	}
}

// FuzzScanErrorOneReading: whenever Scan accepts a body whose error is an
// object, the code, message and data encoding/json decodes (the last key,
// matched without regard to case) are the ones a reader that takes the
// first exact key reads (a proxy, agave's client, another parser).
func FuzzScanErrorOneReading(f *testing.F) {
	for _, s := range errorSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, err := Scan(body, false); err != nil || !json.Valid(body) {
			return
		}
		var env Envelope
		if json.Unmarshal(body, &env) != nil || env.Error == nil {
			return
		}
		raw := firstExact(body, "error")
		var first Error
		if err := json.Unmarshal(firstExact(raw, "code"), &first.Code); err != nil {
			first.Code = 0 // absent
		}
		_ = json.Unmarshal(firstExact(raw, "message"), &first.Message)
		first.Data = firstExact(raw, "data")
		if first.Code != env.Error.Code || first.Message != env.Error.Message || !bytes.Equal(first.Data, env.Error.Data) {
			t.Fatalf("Scan accepted %q: encoding/json reads %+v, the first exact keys %+v", body, *env.Error, first)
		}
	})
}

// firstExact returns the value of the first key of the object obj spelled
// exactly name, without an escape, or nil.
func firstExact(obj []byte, name string) json.RawMessage {
	if t := bytes.TrimLeft(obj, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil
	}
	var found json.RawMessage
	_ = refMembers(obj, nil, "", func(_, raw string, v json.RawMessage) error {
		if found == nil && raw == name {
			found = v
		}
		return nil
	})
	return found
}

// TestScanAllocates: a clean answer costs no allocation, nor does an
// error object's check.
func TestScanAllocates(t *testing.T) {
	for _, s := range []string{scanSeeds[0], errorSeeds[0]} {
		body := []byte(s)
		if n := testing.AllocsPerRun(100, func() { _, _ = Scan(body, true) }); n != 0 {
			t.Fatalf("Scan(%s) allocated %v times", s, n)
		}
	}
}

// FuzzScanMatchesTokens: on every valid JSON body, Scan judges as
// refScan, built on encoding/json's own tokenizer and key unescaping
// with bytes.EqualFold (encoding/json's key matching), does.
func FuzzScanMatchesTokens(f *testing.F) {
	for _, s := range append(scanSeeds[:len(scanSeeds):len(scanSeeds)], errorSeeds...) {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, body []byte, slots bool) {
		if !json.Valid(body) {
			_, _ = Scan(body, slots) // no panic
			return
		}
		want, wantErr := refScan(body, slots)
		got, err := Scan(body, slots)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || (err == nil && got != want) {
			t.Fatalf("Scan(%q, %v) = %+v, %v; tokens say %+v, %v", body, slots, got, err, want, wantErr)
		}
	})
}

// refScan is Scan's rule read off encoding/json's Decoder: keys come
// unescaped from Token, raw bytes tell whether they were escaped.
func refScan(body []byte, slots bool) (Shape, error) {
	var sh Shape
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return sh, nil
	}
	seen := map[string]bool{}
	null := map[string]bool{}
	plain := true
	err := refMembers(body, envelopeNames[:], "", func(name, raw string, v json.RawMessage) error {
		plain = plain && ascii([]byte(raw)) && !bytes.Contains([]byte(raw), []byte{'\\'})
		if name == "" {
			return nil
		}
		seen[name], null[name] = true, string(v) == "null"
		if name == "result" && slots && string(v) != "null" {
			return refResult(v, &sh)
		}
		if name == "error" && v[0] == '{' {
			return refMembers(v, errorNames[:], "error.", func(string, string, json.RawMessage) error { return nil })
		}
		return nil
	})
	if err != nil {
		return Shape{}, err
	}
	sh.Result = seen["result"] && !null["result"]
	if sh.Result && seen["error"] && !null["error"] {
		return Shape{}, ErrResultAndError
	}
	sh.Direct = plain && sh.Result && !seen["error"]
	return sh, nil
}

func refResult(v json.RawMessage, sh *Shape) error {
	if v[0] != '{' {
		sh.Value, sh.HasValue = refUnsigned(v)
		return nil
	}
	sh.Object = true
	return refMembers(v, resultNames[:], "result.", func(name, _ string, cv json.RawMessage) error {
		if name != "context" || cv[0] != '{' {
			return nil
		}
		return refMembers(cv, contextNames[:], "result.context.", func(name, _ string, sv json.RawMessage) error {
			if name == "slot" {
				sh.Slot, sh.HasSlot = refUnsigned(sv)
			}
			return nil
		})
	})
}

// refMembers calls f with each key of the object obj that names one of
// names exactly (name set) or none (name ""), in order, failing as Scan
// does on a repeated or folded one.
func refMembers(obj []byte, names []string, prefix string, f func(name, raw string, v json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		return err
	}
	seen := map[string]bool{}
	for dec.More() {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		raw := string(bytes.Trim(obj[before:dec.InputOffset()], " \t\r\n,"))
		raw = raw[1 : len(raw)-1]
		key := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil && err != io.EOF {
			return err
		}
		name := ""
		for _, n := range names {
			switch {
			case key == n && raw == n:
				if seen[n] {
					return &MemberError{Path: prefix + n, Repeated: true}
				}
				seen[n], name = true, n
			case bytes.EqualFold([]byte(key), []byte(n)):
				return &MemberError{Path: prefix + n}
			}
		}
		if err := f(name, raw, v); err != nil {
			return err
		}
	}
	return nil
}

// ascii reports whether key is plain ASCII.
func ascii(key []byte) bool {
	for _, c := range key {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// refUnsigned reads a JSON number that is an unsigned integer without a
// leading zero, fraction or exponent.
func refUnsigned(v json.RawMessage) (uint64, bool) {
	s := string(v)
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, false // past 64 bits
	}
	return n, true
}

// TestMemberErrorText names the path and never the body.
func TestMemberErrorText(t *testing.T) {
	if got := (&MemberError{Path: "result.context", Repeated: true}).Error(); got != "response has member result.context twice" {
		t.Error(got)
	}
	var me *MemberError
	if _, err := Scan([]byte(`{"result":1,"Result":2}`), false); !errors.As(err, &me) || me.Path != "result" || me.Repeated {
		t.Errorf("err = %v", err)
	}
}

// BenchmarkScan reads the members of a recorded getBalance answer and a
// 1.5 KB getAccountInfo one, as an untracked and as a tracked read.
func BenchmarkScan(b *testing.B) {
	account := `{"jsonrpc":"2.0","result":{"context":{"apiVersion":"2.2.14","slot":345678901},"value":{"data":["` +
		string(bytes.Repeat([]byte("QUJD"), 333)) + `","base64"],"executable":false,"lamports":7850880,` +
		`"owner":"TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA","rentEpoch":18446744073709551615,"space":1000}},"id":1}`
	for _, body := range []struct{ name, body string }{{"getBalance", scanSeeds[0]}, {"getAccountInfo", account}} {
		for _, slots := range []bool{false, true} {
			name := body.name + "/untracked"
			if slots {
				name = body.name + "/tracked"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				raw := []byte(body.body)
				for b.Loop() {
					if _, err := Scan(raw, slots); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
