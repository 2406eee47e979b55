package wire

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// reference is what EncodeRequest must write: json.Marshal's bytes.
func reference(t testing.TB, id uint64, method string, params []any) []byte {
	t.Helper()
	b, err := json.Marshal(request{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// keyWithZeros is a public key whose first n bytes are zero (base58's
// leading '1's).
func keyWithZeros(n int) solana.PublicKey {
	k := solana.MustPublicKeyFromBase58("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")
	for i := range n {
		k[i] = 0
	}
	return k
}

// sigWithZeros is a signature whose first n bytes are zero.
func sigWithZeros(n int) solana.Signature {
	var s solana.Signature
	for i := range s {
		s[i] = byte(7*i + 1)
	}
	for i := range n {
		s[i] = 0
	}
	return s
}

// TestEncodeRequestMatchesMarshal: the hand-written request is the bytes
// json.Marshal writes, for every kind of param its fast paths take and
// the ones they leave to json.Marshal.
func TestEncodeRequestMatchesMarshal(t *testing.T) {
	pk := solana.MustPublicKeyFromBase58("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")
	cases := []struct {
		method string
		params []any
	}{
		{"getHealth", nil},
		{"getHealth", []any{}},
		{"getBalance", []any{pk}},
		{"getBalance", []any{pk, rpc.M{"commitment": "confirmed"}}},
		{"getBalance", []any{&pk}},
		{"getAccountInfo", []any{keyWithZeros(1), map[string]any{"encoding": "base64", "minContextSlot": 5}}},
		{"getAccountInfo", []any{keyWithZeros(32)}},
		{"getAccountInfo", []any{keyWithZeros(31)}},
		{"getBlock", []any{uint64(345678901), int64(-3), 7, true, false, nil}},
		{"sendTransaction", []any{"AQID+/==", map[string]any{"encoding": "base64"}}},
		{"x", []any{"quote\" backslash\\ <b>&amp; \u2028 \x01 é \xff"}},
		{"we<ird\"method", []any{1.5, []string{"a"}, json.RawMessage(`{ "a" : 1 }`)}},
		// keys and signatures, alone and in slices, as the bulk reads and solana-go pass them
		{"getMultipleAccounts", []any{[]solana.PublicKey{pk, keyWithZeros(3), keyWithZeros(32)}, rpc.M{"encoding": "base64"}}},
		{"getMultipleAccounts", []any{[]solana.PublicKey{}, []solana.PublicKey(nil)}},
		{"getSignatureStatuses", []any{[]solana.Signature{sigWithZeros(0), sigWithZeros(5), sigWithZeros(64)}, rpc.M{"searchTransactionHistory": true}}},
		{"getSignatureStatuses", []any{[]solana.Signature{}, []solana.Signature(nil)}},
		{"getTransaction", []any{sigWithZeros(1), rpc.M{"encoding": "json", "maxSupportedTransactionVersion": 0}}},
		// config objects as solana-go builds them: written by appendObject
		{"getAccountInfo", []any{pk, rpc.M{"encoding": solana.EncodingBase64, "commitment": rpc.CommitmentConfirmed,
			"minContextSlot": uint64(345678901), "dataSlice": rpc.M{"offset": uint64(0), "length": uint64(32)}}}},
		{"getBlock", []any{uint64(7), rpc.M{"rewards": false, "transactionDetails": "none", "maxSupportedTransactionVersion": uint64(0),
			"identity": pk, "epoch": nil, "limit": 10, "before": int64(-1)}}},
		{"m", []any{rpc.M{}, map[string]any{}, rpc.M{"b": 1, "a": 2, "A": 3, "_": 4, "é": 5, "<&>\"": "\u2028"}}},
		{"m", []any{rpc.M(nil), map[string]any(nil), rpc.M{"a": rpc.M(nil), "b": map[string]any(nil)}}},
		{"m", []any{rpc.M{"a": rpc.M{"b": rpc.M{"c": rpc.M{"d": rpc.M{"e": rpc.M{"f": 1}}}}}}}},
		{"sendTransaction", []any{"AQID", rpc.M{"encoding": "base64", "skipPreflight": true,
			"preflightCommitment": rpc.CommitmentProcessed, "maxRetries": uint(0)}}},
		{"getSignaturesForAddress", []any{pk, rpc.M{"limit": &[]int{10}[0], "before": sigWithZeros(2), "until": solana.Signature{}}}},
		{"getBlock", []any{uint64(9), rpc.M{"rewards": (*bool)(nil), "limit": (*int)(nil), "v": (*uint64)(nil),
			"w": &[]uint64{7}[0], "x": &[]bool{true}[0], "transactionDetails": rpc.TransactionDetailsFull}}},
		{"m", []any{uint(42)}},
		{"sendBundle", []any{[]string{"AQID+/==", "", "quote\" <b>é\xff"}, []string{}, []string(nil)}},
		// objects appendObject leaves to json.Marshal: too many members, or a value it does not write
		{"m", []any{rpc.M{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8, "i": 9}}},
		{"m", []any{rpc.M{"commitment": "confirmed", "dataSlice": &struct{ Offset uint64 }{3}}}},
		{"m", []any{rpc.M{"nested": rpc.M{"x": 1.5}}, rpc.M{"u": uint32(3)}, rpc.M{"t": int32(-3)}}},
	}
	for _, c := range cases {
		got, err := EncodeRequest(42, c.method, c.params)
		if err != nil {
			t.Fatal(err)
		}
		if want := reference(t, 42, c.method, c.params); !bytes.Equal(got, want) {
			t.Errorf("%s %v:\n got %s\nwant %s", c.method, c.params, got, want)
		}
	}
}

// TestBase58MatchesSolanaGo: the encoder's base58 is PublicKey.String's,
// on random keys and keys with leading zero bytes.
func TestBase58MatchesSolanaGo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		var k solana.PublicKey
		for j := range k {
			k[j] = byte(r.Uint32())
		}
		for j := range i % 5 {
			k[j] = 0
		}
		if got := appendBase58(nil, k); string(got) != k.String()+`"` {
			t.Fatalf("%x: got %s, want %s", k[:], got, k.String())
		}
		var s solana.Signature
		for j := range s {
			s[j] = byte(r.Uint32())
		}
		for j := range i % 9 {
			s[j] = 0
		}
		if got := appendBase58Bytes(nil, s[:]); string(got) != s.String()+`"` {
			t.Fatalf("%x: got %s, want %s", s[:], got, s.String())
		}
	}
}

// TestEncodeRequestErrors: a param json.Marshal refuses fails the encode:
// a channel, and a config object that holds itself (json.Marshal reports
// the cycle; written by hand without a bound, it overflowed the stack).
func TestEncodeRequestErrors(t *testing.T) {
	if _, err := EncodeRequest(1, "m", []any{make(chan int)}); err == nil {
		t.Fatal("a channel param encoded")
	}
	m := rpc.M{"commitment": "confirmed"}
	m["self"] = m
	if _, err := EncodeRequest(1, "m", []any{m}); err == nil {
		t.Fatal("a map that holds itself encoded")
	}
}

// TestEncodeRequestAllocatesOnce: a request is one allocation, with room
// left for the minContextSlot splice, for getBalance's public key (json.Marshal
// took six), a config object as solana-go builds one (json.Marshal of the
// object alone took four) and getMultipleAccounts' 100 keys (json.Marshal
// of the keys alone took 402).
func TestEncodeRequestAllocatesOnce(t *testing.T) {
	pk := solana.MustPublicKeyFromBase58("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")
	keys := make([]solana.PublicKey, 100)
	for i := range keys {
		keys[i] = keyWithZeros(i % 3)
		keys[i][31] = byte(i)
	}
	for _, tc := range []struct {
		method string
		params []any
	}{
		{"getBalance", []any{pk}},
		{"getAccountInfo", []any{pk, rpc.M{"commitment": rpc.CommitmentConfirmed, "encoding": solana.EncodingBase64, "minContextSlot": uint64(9)}}},
		{"getMultipleAccounts", []any{keys, rpc.M{"encoding": "base64", "commitment": "confirmed"}}},
	} {
		n := testing.AllocsPerRun(100, func() {
			if _, err := EncodeRequest(7, tc.method, tc.params); err != nil {
				t.Fatal(err)
			}
		})
		if n > 1 {
			t.Errorf("%s: %v allocations per request, want 1", tc.method, n)
		}
	}
}

// FuzzEncodeRequest holds EncodeRequest to json.Marshal's bytes on
// arbitrary methods, strings, numbers and keys.
func FuzzEncodeRequest(f *testing.F) {
	f.Add("getBalance", "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM", uint64(3), int64(-1), []byte{0, 0, 1})
	f.Add("we\"ird<", "\u2028\xff&", uint64(0), int64(0), []byte{})
	f.Fuzz(func(t *testing.T, method, s string, u uint64, i int64, key []byte) {
		var k solana.PublicKey
		copy(k[:], key)
		var sig solana.Signature
		copy(sig[:], key)
		copy(sig[32:], key)
		params := []any{s, u, i, k, nil, true, sig, []solana.PublicKey{k, {}}, []solana.Signature{sig, {}}, []string{s, method},
			rpc.M{s: u, "commitment": rpc.CommitmentType(s), method: rpc.M{"k": k, s: i}, "e": solana.EncodingType(method),
				"p": &i, "q": &u, "sig": sig, "n": uint(u)}}
		got, err := EncodeRequest(u, method, params)
		if err != nil {
			t.Fatal(err)
		}
		if want := reference(t, u, method, params); !bytes.Equal(got, want) {
			t.Fatalf("got %s\nwant %s", got, want)
		}
	})
}

// TestMinContextSlotSplicesInPlace: a tracked read's request, encoded
// then given its minContextSlot, is still one allocation: the splice
// uses the room EncodeRequest leaves.
func TestMinContextSlotSplicesInPlace(t *testing.T) {
	pk := solana.MustPublicKeyFromBase58("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")
	params := []any{pk}
	n := testing.AllocsPerRun(100, func() {
		b, err := EncodeRequest(7, "getBalance", params)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := WithMinContextSlot(b, 1, 18446744073709551615); !ok {
			t.Fatal("no splice")
		}
	})
	if n > 1 {
		t.Fatalf("%v allocations per request, want 1", n)
	}
}

// BenchmarkBase58 is appendBase58 against solana-go's PublicKey.String.
func BenchmarkBase58(b *testing.B) {
	k := solana.MustPublicKeyFromBase58("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")
	buf := make([]byte, 0, 64)
	b.Run("wire", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf = appendBase58(buf[:0], k)
		}
	})
	b.Run("solana-go", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = k.String()
		}
	})
}

// BenchmarkEncodeBulkKeys is a getMultipleAccounts request of 100 keys
// through EncodeRequest against json.Marshal of the same request.
func BenchmarkEncodeBulkKeys(b *testing.B) {
	keys := make([]solana.PublicKey, 100)
	for i := range keys {
		keys[i][0], keys[i][31] = byte(i+1), 7
	}
	params := []any{keys, rpc.M{"encoding": "base64", "commitment": "confirmed"}}
	b.Run("wire", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := EncodeRequest(7, "getMultipleAccounts", params); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = reference(b, 7, "getMultipleAccounts", params)
		}
	})
}
