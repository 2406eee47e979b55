package engine

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/slots"
	"github.com/solroute/solroute/internal/wire"
	"github.com/solroute/solroute/transport"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
)

// twoPassDecode is intoExchange.decode as it was before the one-pass path
// (decodeTwoPass; decode still falls back to its second pass,
// decodeScanned): the reference the one-pass path must match, and the
// "before" of BenchmarkDecodeResult.
func twoPassDecode(b *wire.Buffer, body []byte, id uint64, out any) (retrypolicy.Cause, int, error) {
	b.ID = wire.AppendID(b.ID, id)
	return decodeTwoPass(b, body, out)
}

// decodeTwoPass checks body is the response to the request whose id is
// b.ID (wire.ParseEnvelope: wire.Scan, then the envelope), then decodes
// its result into out (nil: none). It is the path every answer took
// before the one-pass decode, and the reference that decode is fuzzed
// against (FuzzOnePassMatchesTwoPass); only the tests call it.
func decodeTwoPass(b *wire.Buffer, body []byte, out any) (retrypolicy.Cause, int, error) {
	if _, err := wire.Scan(body, false); err != nil {
		return retrypolicy.MalformedResponse, 0, err
	}
	return decodeScanned(b, body, out)
}

// balanceBody is the recorded getBalance response (fixtures/recorded).
const balanceBody = `{"jsonrpc":"2.0","result":{"context":{"apiVersion":"2.2.14","slot":345678901},"value":2039280},"id":1}`

// accountBody is a getAccountInfo response of a 1000-byte account in
// base64: a result of about 1.5 KB whose fields decode through solana-go's
// json.Unmarshalers (PublicKey, DataBytesOrJSON, big.Int).
var accountBody = func() string {
	data := make([]byte, 1000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	return `{"jsonrpc":"2.0","result":{"context":{"apiVersion":"2.2.14","slot":345678901},"value":{"data":["` +
		base64.StdEncoding.EncodeToString(data) + `","base64"],"executable":false,"lamports":7850880,` +
		`"owner":"TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA","rentEpoch":18446744073709551615,"space":1000}},"id":1}`
}()

// TestShapeDirect: which bodies the one-pass decode may take (wire.Scan's
// Shape.Direct), and which Scan refuses outright.
func TestShapeDirect(t *testing.T) {
	for _, tt := range []struct {
		body    string
		want    bool
		refused bool
	}{
		{balanceBody, true, false},
		{accountBody, true, false},
		{`{"id":1,"result":5}`, true, false},
		{"  {\n\"result\" :\t\"x\\\"}\" , \"id\" : 1 }  ", true, false},
		{`{"a":"\\","result":[1,{"b":"]}"}],"id":1}`, true, false},
		{`{"a":{"result":null,"error":1},"result":true}`, true, false}, // nested keys are not the envelope's
		{`{"result":1}`, true, false},                                  // the id is checked after the decode
		{`{"jsonrpc":"2.0","id":1,"result":false}`, true, false},
		{`{"result":null,"id":1}`, false, false},
		{`{"result": null}`, false, false},
		{`{"id":1}`, false, false},
		{`{}`, false, false},
		{`{"result":1,"error":null}`, false, false}, // a null error: the two-pass way
		{`{"result":null,"error":{"code":1}}`, false, false},
		{`{"RESULT":1,"id":1}`, false, true}, // encoding/json would take it for "result"
		{`{"result":1,"result":2}`, false, true},
		{`{"Result":1,"result":2}`, false, true},
		{`{"result":1,"error":{"code":1}}`, false, true},
		{`{"ERROR":null,"result":1}`, false, true},
		{`{"re\u0073ult":1}`, false, true},
		{`{"reſult":1}`, false, true}, // U+017F folds to 's' in encoding/json
		{`{"pa\u0064":1,"result":1}`, false, false},
		{`{"pād":1,"result":1}`, false, false},
		{`[{"result":1}]`, false, false},
		{`null`, false, false},
		{``, false, false},
		{`{"result":`, false, true},
		{`{"result":1,`, false, true},
		{`{"result"`, false, true},
		{`{"result`, false, true},
	} {
		sh, err := wire.Scan([]byte(tt.body), false)
		if sh.Direct != tt.want || (err != nil) != tt.refused {
			t.Errorf("wire.Scan(%s) = %+v, %v; want direct %v, refused %v", tt.body, sh, err, tt.want, tt.refused)
		}
	}
}

// outKinds are the out values the equivalence checks decode into, each
// made fresh: caller types, solana-go's Unmarshalers, and values that hold
// something before the call.
var outKinds = []struct {
	name string
	make func() any
}{
	{"nil", func() any { return nil }},
	{"balance", func() any { return new(rpc.GetBalanceResult) }},
	{"account", func() any { var p *rpc.GetAccountInfoResult; return &p }},
	{"account-set", func() any { p := &rpc.GetAccountInfoResult{}; p.Context.Slot = 9; return &p }},
	{"uint64", func() any { return new(uint64) }},
	{"string", func() any { return new(string) }},
	{"any", func() any { var v any = "before"; return &v }},
	{"map", func() any { m := map[string]any{"before": 1.0}; return &m }},
	{"slice", func() any { s := []int{9, 9, 9}; return &s }},
	{"raw", func() any { return new(json.RawMessage) }},
	{"pubkey", func() any { return new(solana.PublicKey) }},
	{"bigint", func() any { return big.NewInt(5) }},
	{"fields", func() any { return &struct{ A, F int }{} }},
	{"fields-set", func() any { return &struct{ A, F int }{A: 5, F: 6} }},
	{"not-a-pointer", func() any { return struct{ A int }{} }},
	{"nil-pointer", func() any { return (*uint64)(nil) }},
}

// decodeSeeds are bodies for a request with id 1: answers, refusals and
// hostile ones.
var decodeSeeds = []string{
	balanceBody,
	accountBody,
	// Keys encoding/json folds into "result" that wire.DirectResult cannot see
	// as such: an escape, and a non-ASCII letter (U+017F folds to s).
	`{"re\u0073ult":{"A":1},"result":{"F":2},"id":1}`,
	`{"reſult":{"A":1},"result":{"F":2},"id":1}`,
	`{"jsonrpc":"2.0","result":null,"id":1}`,
	`{"jsonrpc":"2.0","id":1}`,
	`{"jsonrpc":"2.0","result":{"context":{"slot":7},"value":42},"id":2}`,
	`{"jsonrpc":"2.0","result":{"context":{"slot":7},"value":42},"id":"1"}`,
	`{"jsonrpc":"2.0","result":{"context":{"slot":7},"value":42}}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"result":{"value":42}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"value":42},"result":"x"}`,
	`{"jsonrpc":"2.0","id":1,"result":{"value":42},"result":null}`,
	`{"jsonrpc":"2.0","id":1,"result":null,"result":{"value":42}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":7}},"result":{"value":42}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"A":1},"Result":{"F":2}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"value":42},"error":{"code":-32005,"message":"behind"}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"value":42},"error":null}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad","data":{"x":[1,2]}}}`,
	`{"jsonrpc":"2.0","id":2,"error":{"code":-32005,"message":"behind"}}`,
	`{"jsonrpc":"2.0","error":{"code":429,"message":"Too many requests"}}`,
	`{"jsonrpc":"2.0","id":1,"error":"boom"}`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\xff\xfe:1}",
	"{\"jsonrpc\":\"2.0\",\"result\":\"\xff\",\"id\":1}",
	``,
	`null`,
	`{}`,
	`[]`,
	`<html><body>502 Bad Gateway</body></html>`,
	`[{"jsonrpc":"2.0","id":1,"result":{"value":42}}]`,
	`{"jsonrpc":"2.0","result":"x","id":1}`,
	`{"jsonrpc":"2.0","result":"x","id":2}`,
	`{"jsonrpc":"2.0","result":{"context":{"slot":7},"value":"x"},"id":1}`,
	`{"jsonrpc":"2.0","result":{"context":{"slot":7},"value":{"owner":"not base58!"}},"id":1}`,
	`{"jsonrpc":"2.0","result":{"context":{"slot":7},"value":{"owner":"not base58!"}},"id":2}`,
	`{"jsonrpc":"2.0","result":{"context":{"slot":7},"value":null},"id":1}`,
	`{"jsonrpc":"2.0","result":{"A":1},"id":1} trailing`,
	`{"RESULT":{"value":3,"A":2},"Id":1}`,
	`{"re\u0073ult":{"A":3},"id":1}`,
	`{"result":[1,2,3],"id":1}`,
	`{"result":[],"id":1}`,
	`{"result":{},"id":1}`,
	`{"result":123456789012345678901234567890,"id":1}`,
	`{"result":"TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA","id":1}`,
	`{"result":{"A":"1"},"id":1}`,
	` {"result" : true , "id" : 1 } `,
	`{"result":{"a":{"b":{"c":[[[]]]}}},"id":1}`,
	// Both members, and JSON-RPC 1.0's nulls beside the other member.
	`{"jsonrpc":"2.0","id":1,"result":"5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW","error":{"code":429,"message":"Too many requests"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32016,"message":"m","data":{"contextSlot":5}},"result":{"context":{"slot":7},"value":1}}`,
	`{"jsonrpc":"2.0","id":1,"result":null,"error":{"code":-32002,"message":"Transaction simulation failed"}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":7},"value":42},"error":null}`,
	`{"jsonrpc":"2.0","id":1,"result":null,"error":null}`,
	`{"jsonrpc":"2.0","id":1,"error":null}`,
	// Repeated and case-variant members where the slot is read.
	`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":2000},"context":{"slot":1000},"value":1}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":2000},"Context":{"slot":1000},"value":1}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"Context":{"slot":1000},"value":1}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":2000,"slot":1000},"value":1}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":2000,"SLOT":1000},"value":1}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":2000},"value":1,"Value":2}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":2000},"value":1},"Result":{"context":{"slot":1000},"value":1}}`,
	`{"jsonrpc":"2.0","id":1,"Result":{"context":{"slot":1000},"value":1}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":2000},"value":1},"result":{"context":{"slot":1000},"value":1}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"context":{"apiVersion":"2.2.14"},"value":1}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":1e3},"value":1}}`,
	`{"jsonrpc":"2.0","id":1,"result":2000}`,
	`{"jsonrpc":"2.0","id":1,"result":2000,"RESULT":1000}`,
}

// compareDecode decodes body into a fresh out of each kind the old way and
// the new way and fails on any difference in the outcome or in out.
func compareDecode(t *testing.T, body []byte) {
	t.Helper()
	for _, k := range outKinds {
		oldOut, newOut := k.make(), k.make()
		oldCause, oldCode, oldErr := twoPassDecode(&wire.Buffer{}, body, 1, oldOut)
		b := &wire.Buffer{}
		x := &intoExchange{id: 1, out: newOut}
		newCause, newCode, _, newErr := x.judge(b, body)
		if oldCause != newCause || oldCode != newCode || fmt.Sprint(oldErr) != fmt.Sprint(newErr) {
			t.Fatalf("%s: body %q: one pass = (%s, %d, %v), two passes = (%s, %d, %v)",
				k.name, body, newCause, newCode, newErr, oldCause, oldCode, oldErr)
		}
		var oldDE, newDE *decodeError
		var oldRE, newRE *transport.RPCError
		if errors.As(oldErr, &oldDE) != errors.As(newErr, &newDE) || errors.As(oldErr, &oldRE) != errors.As(newErr, &newRE) {
			t.Fatalf("%s: body %q: error types differ: %T, %T", k.name, body, newErr, oldErr)
		}
		if oldRE != nil && !bytes.Equal(oldRE.Data, newRE.Data) {
			t.Fatalf("%s: body %q: RPCError data %q, want %q", k.name, body, newRE.Data, oldRE.Data)
		}
		if !reflect.DeepEqual(oldOut, newOut) {
			t.Fatalf("%s: body %q: out %#v, want %#v", k.name, body, newOut, oldOut)
		}
	}
}

// compareSlots judges body as the answer to a read that tracks slots, at
// floor 0 so that any slot passes, and fails when an answer it accepts puts
// another slot into the caller's value than the one the check read: into
// solana-go's typed result, a map (exact keys, the last of repeated ones)
// and, for getSlot, a number.
func compareSlots(t *testing.T, body []byte) {
	t.Helper()
	contextPlan := &slots.Plan{Traits: slots.TraitsOf("getBalance")}
	for _, k := range []struct {
		name string
		out  any
		slot func(out any) uint64
	}{
		{"balance", new(rpc.GetBalanceResult), func(out any) uint64 { return out.(*rpc.GetBalanceResult).Context.Slot }},
		{"map", new(map[string]any), func(out any) uint64 {
			c, _ := (*out.(*map[string]any))["context"].(map[string]any)
			f, _ := c["slot"].(float64)
			return uint64(f)
		}},
	} {
		x := &intoExchange{id: 1, out: k.out, slots: contextPlan}
		cause, _, slot, err := x.judge(&wire.Buffer{}, body)
		if cause == 0 && err == nil && k.slot(k.out) != slot {
			t.Fatalf("%s: body %q: the check read slot %d, the caller got %d", k.name, body, slot, k.slot(k.out))
		}
	}
	var n uint64
	x := &intoExchange{id: 1, out: &n, slots: &slots.Plan{Traits: slots.TraitsOf("getSlot")}}
	if cause, _, slot, err := x.judge(&wire.Buffer{}, body); cause == 0 && err == nil && n != slot {
		t.Fatalf("getSlot: body %q: the check read slot %d, the caller got %d", body, slot, n)
	}
}

// TestOnePassMatchesTwoPass: for every seed body and out kind, the one-pass
// decode gives the outcome and the out of wire.ParseEnvelope + json.Unmarshal,
// and a read that tracks slots hands the caller the slot it checked.
func TestOnePassMatchesTwoPass(t *testing.T) {
	for _, s := range decodeSeeds {
		compareDecode(t, []byte(s))
		compareSlots(t, []byte(s))
	}
}

func FuzzOnePassMatchesTwoPass(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		compareDecode(t, body)
		compareSlots(t, body)
	})
}

// TestRetryResetsAFailedAttemptsResult: attempt 1 answers a result with F
// set but the wrong id, so the one-pass decode writes F into out before the
// id check fails it; attempt 2 answers the right id without F. out must be
// attempt 2's result alone (encoding/json would keep F: it merges).
func TestRetryResetsAFailedAttemptsResult(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ ID json.RawMessage }
		_ = json.NewDecoder(r.Body).Decode(&req)
		id, result := string(req.ID), `{"a":2}`
		if n.Add(1) == 1 {
			id, result = "987654321", `{"a":1,"f":7}`
		}
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","result":`+result+`,"id":`+id+`}`)
	}))
	defer srv.Close()
	p, err := admission.New([]endpoint.Spec{{Name: "plain", URL: endpoint.NewSecret(srv.URL),
		Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {}}}}, pool.DefaultSettings(), admission.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var causes []retrypolicy.Cause
	s := transport.DefaultSettings()
	s.Retry.Jitter = func(time.Duration) time.Duration { return 0 }
	c, err := New(p, s, Options{
		Observers: []transport.Observer{AttemptFunc(func(_ context.Context, _ string, a transport.Attempt) { causes = append(causes, a.Cause) })},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	out := struct {
		A int `json:"a"`
		F int `json:"f"`
	}{}
	if err := c.CallForInto(context.Background(), &out, "getVersion", nil); err != nil {
		t.Fatal(err)
	}
	if len(causes) != 2 || causes[0] != retrypolicy.MalformedResponse || causes[1] != 0 {
		t.Fatalf("attempts ended %v, want malformed-response then success", causes)
	}
	if out.A != 2 || out.F != 0 {
		t.Fatalf("out %+v, want {A:2 F:0}: a failed attempt's field survived", out)
	}
}

// BenchmarkDecodeResult decodes a response into a fresh out the old way
// (wire.ParseEnvelope, then json.Unmarshal of the result) and the new way
// (intoExchange.judge: wire.Scan, then one pass), untracked and as a read
// that tracks slots, for the recorded getBalance response and a 1.5 KB
// getAccountInfo one.
func BenchmarkDecodeResult(b *testing.B) {
	for _, body := range []struct {
		name string
		body []byte
		out  func() any
	}{
		{"getBalance", []byte(balanceBody), func() any { return new(rpc.GetBalanceResult) }},
		{"getAccountInfo", []byte(accountBody), func() any { var p *rpc.GetAccountInfoResult; return &p }},
	} {
		b.Run(body.name+"/two-pass", func(b *testing.B) {
			b.ReportAllocs()
			buf := &wire.Buffer{}
			for b.Loop() {
				if _, _, err := twoPassDecode(buf, body.body, 1, body.out()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(body.name+"/one-pass", func(b *testing.B) {
			b.ReportAllocs()
			buf := &wire.Buffer{}
			for b.Loop() {
				x := intoExchange{id: 1, out: body.out()}
				if _, _, _, err := x.judge(buf, body.body); err != nil {
					b.Fatal(err)
				}
			}
		})
		// As a read that tracks slots decodes it: the slot checked, then
		// the one pass.
		b.Run(body.name+"/tracked", func(b *testing.B) {
			b.ReportAllocs()
			buf := &wire.Buffer{}
			plan := &slots.Plan{Traits: slots.TraitsOf(body.name)}
			for b.Loop() {
				x := intoExchange{id: 1, out: body.out(), slots: plan}
				if _, _, _, err := x.judge(buf, body.body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
