package wire

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Failures of a response's members that Scan detects. Their text is fixed
// and secret-free.
var (
	// ErrResultAndError: the response has a result and an error, neither
	// null. JSON-RPC 2.0 forbids it, and either member may be the true one:
	// a send answered with its signature beside a refusal's code was
	// dispatched, whatever the code says.
	ErrResultAndError = errors.New("response has both a result and an error")
	// ErrNoContextSlot: a result that must carry context.slot (an agave
	// RpcResponse) carries none that reads as a slot.
	ErrNoContextSlot = errors.New("response's result carries no context slot")
)

// MemberError is a member that appears twice in its object, or whose key
// differs from its name only in case (or by an escape, or a Unicode letter
// that folds to the same): encoding/json would read its last occurrence,
// matching keys without regard to case, while a reader that takes the first
// exact key reads another value. The text names the member's path (fixed
// names, never the body's bytes).
type MemberError struct {
	// Path is the member's path, for example "result.context.slot".
	Path string
	// Repeated is true when the key appears twice, false when it is
	// spelled in another case.
	Repeated bool
}

func (e *MemberError) Error() string {
	if e.Repeated {
		return "response has member " + e.Path + " twice"
	}
	return "response spells member " + e.Path + " in another case"
}

// Shape is what Scan read of a response without decoding it.
type Shape struct {
	// Direct is true when ParseDirect decodes the response exactly as
	// ParseEnvelope followed by json.Unmarshal(result, out) would: every
	// top-level key is plain ASCII, the result is present and not null
	// (a null through an interface is not a null into out) and there is
	// no error member.
	Direct bool
	// Result is true when the response has a result that is not null;
	// Object when that result is an object (Scan with slots only).
	Result, Object bool
	// Slot is result.context.slot when HasSlot (Scan with slots only).
	Slot    uint64
	HasSlot bool
	// Value is the result itself when it is an unsigned integer (getSlot's
	// answer) and HasValue (Scan with slots only).
	Value    uint64
	HasValue bool
}

// Top-level members of a response, and the members of a result and of its
// context that the slot check reads.
var (
	envelopeNames = [...]string{"jsonrpc", "id", "result", "error"}
	resultNames   = [...]string{"context", "value"}
	contextNames  = [...]string{"slot"}
)

const (
	memberResult = 2
	memberError  = 3
)

// Scan reads body, a single response, once, without decoding its values,
// and checks that each member it reads is unambiguous: at the top level
// jsonrpc, id, result and error each appear at most once and only under
// their own spelling, and a response never has a result and an error that
// are both not null. With slots it also reads result.context.slot (and a
// result that is itself a slot), under the same rule for the result's
// context and value and the context's slot, so that the slot it reports is
// the one encoding/json decodes into the caller's value.
//
// A null member counts as absent beside the other (JSON-RPC 1.0's form,
// which real servers still send: "error": null beside a result, "result":
// null beside an error). A body that is not an object is left to
// ParseEnvelope; one that breaks off is ErrNotJSONRPC.
func Scan(body []byte, slots bool) (Shape, error) {
	var sh Shape
	i := skipSpace(body, 0)
	if i == len(body) || body[i] != '{' {
		return sh, nil
	}
	var seen [len(envelopeNames)]bool
	var null [len(envelopeNames)]bool
	plain := true
	end, err := members(body, i, func(key []byte, escaped bool, v int) (int, error) {
		plain = plain && !escaped && ascii(key)
		m, err := which(key, escaped, envelopeNames[:], "", seen[:])
		if err != nil || m < 0 {
			return skipValue(body, v), err
		}
		null[m] = body[v] == 'n'
		if m == memberResult && slots && !null[m] {
			return scanResult(body, v, &sh)
		}
		return skipValue(body, v), nil
	})
	if err != nil {
		return Shape{}, err
	}
	if skipSpace(body, end) != len(body) {
		return Shape{}, ErrNotJSONRPC
	}
	sh.Result = seen[memberResult] && !null[memberResult]
	if sh.Result && seen[memberError] && !null[memberError] {
		return Shape{}, ErrResultAndError
	}
	sh.Direct = plain && sh.Result && !seen[memberError]
	return sh, nil
}

// scanResult reads the result value at body[v] into sh (its context slot,
// or the value itself when it is a slot) and returns the index past it.
func scanResult(body []byte, v int, sh *Shape) (int, error) {
	if body[v] != '{' {
		end := skipValue(body, v)
		sh.Value, sh.HasValue = unsigned(body, v)
		return end, nil
	}
	sh.Object = true
	var seen [len(resultNames)]bool
	return members(body, v, func(key []byte, escaped bool, cv int) (int, error) {
		m, err := which(key, escaped, resultNames[:], "result.", seen[:])
		if err != nil || m != 0 || body[cv] != '{' {
			return skipValue(body, cv), err
		}
		var slotSeen [len(contextNames)]bool
		return members(body, cv, func(key []byte, escaped bool, sv int) (int, error) {
			m, err := which(key, escaped, contextNames[:], "result.context.", slotSeen[:])
			if err == nil && m == 0 {
				sh.Slot, sh.HasSlot = unsigned(body, sv)
			}
			return skipValue(body, sv), err
		})
	})
}

// members walks the object starting at body[i] ('{'), calling f with each
// key (its raw bytes between the quotes, and whether they hold an escape)
// and the index of its value; f returns the index past that value. It
// returns the index past the object, or ErrNotJSONRPC where the object
// breaks off. It never fails a valid object.
func members(body []byte, i int, f func(key []byte, escaped bool, v int) (int, error)) (int, error) {
	i = skipSpace(body, i+1)
	if i < len(body) && body[i] == '}' {
		return i + 1, nil
	}
	for i < len(body) && body[i] == '"' {
		end := skipString(body, i+1)
		if end == len(body) {
			return 0, ErrNotJSONRPC
		}
		key := body[i+1 : end-1]
		if i = skipSpace(body, end); i >= len(body) || body[i] != ':' {
			return 0, ErrNotJSONRPC
		}
		if i = skipSpace(body, i+1); i == len(body) {
			return 0, ErrNotJSONRPC
		}
		next, err := f(key, bytes.IndexByte(key, '\\') >= 0, i)
		if err != nil {
			return 0, err
		}
		if i = skipSpace(body, next); i >= len(body) {
			return 0, ErrNotJSONRPC
		}
		switch body[i] {
		case '}':
			return i + 1, nil
		case ',':
			i = skipSpace(body, i+1)
		default:
			return 0, ErrNotJSONRPC
		}
	}
	return 0, ErrNotJSONRPC
}

// which returns the index in names of the member key names, -1 for none,
// marking it in seen. A key that names a member twice, or in another
// spelling encoding/json would take for it (bytes.EqualFold, after
// unescaping), is a *MemberError under path prefix+name.
func which(key []byte, escaped bool, names []string, prefix string, seen []bool) (int, error) {
	if escaped {
		var s string
		if json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &s) != nil {
			return -1, ErrNotJSONRPC
		}
		key = []byte(s)
	}
	for m, name := range names {
		switch {
		case !escaped && string(key) == name:
			if seen[m] {
				return -1, &MemberError{Path: prefix + name, Repeated: true}
			}
			seen[m] = true
			return m, nil
		case bytes.EqualFold(key, []byte(name)):
			return -1, &MemberError{Path: prefix + name}
		}
	}
	return -1, nil
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

// ScanBatch checks each response object of a batch as Scan does (without
// slots). Anything that is not an array of values is left to the decoder.
func ScanBatch(body []byte) error {
	i := skipSpace(body, 0)
	if i == len(body) || body[i] != '[' {
		return nil
	}
	for i = skipSpace(body, i+1); i < len(body) && body[i] != ']'; {
		end := skipValue(body, i)
		if body[i] == '{' {
			if _, err := Scan(body[i:end], false); err != nil {
				return err
			}
		}
		if i = skipSpace(body, end); i < len(body) && body[i] == ',' {
			i = skipSpace(body, i+1)
		} else {
			break
		}
	}
	return nil
}
