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
	errorNames    = [...]string{"code", "message", "data"}
)

const (
	memberResult = 2
	memberError  = 3
)

// Scan reads body, a single response, once, without decoding its values,
// and checks that each member it reads is unambiguous: at the top level
// jsonrpc, id, result and error each appear at most once and only under
// their own spelling, and so do an error object's code, message and data
// (the code decides whether a send may be resent), and a response never
// has a result and an error that are both not null. With slots it also reads result.context.slot (and a
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
	var seen, null [len(envelopeNames)]bool
	direct := true
	o := open(body, i)
	for more := !o.done; more; {
		key, plain, escaped, v, err := o.key()
		if err != nil {
			return Shape{}, err
		}
		direct = direct && plain
		m, err := which(key, plain, escaped, envelopeNames[:], "", seen[:])
		if err != nil {
			return Shape{}, err
		}
		end := 0
		if m >= 0 {
			null[m] = body[v] == 'n'
		}
		switch {
		case m == memberResult && slots && !null[m]:
			end, err = scanResult(body, v, &sh)
		case m == memberError && body[v] == '{':
			end, err = scanError(body, v)
		default:
			end = skipValue(body, v)
		}
		if err != nil {
			return Shape{}, err
		}
		if more, err = o.next(end); err != nil {
			return Shape{}, err
		}
	}
	if skipSpace(body, o.i) != len(body) {
		return Shape{}, ErrNotJSONRPC
	}
	sh.Result = seen[memberResult] && !null[memberResult]
	if sh.Result && seen[memberError] && !null[memberError] {
		return Shape{}, ErrResultAndError
	}
	sh.Direct = direct && sh.Result && !seen[memberError]
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
	o := open(body, v)
	for more := !o.done; more; {
		key, plain, escaped, cv, err := o.key()
		if err != nil {
			return 0, err
		}
		m, err := which(key, plain, escaped, resultNames[:], "result.", seen[:])
		if err != nil {
			return 0, err
		}
		end := 0
		if m == 0 && body[cv] == '{' {
			end, err = scanContext(body, cv, sh)
		} else {
			end = skipValue(body, cv)
		}
		if err != nil {
			return 0, err
		}
		if more, err = o.next(end); err != nil {
			return 0, err
		}
	}
	return o.i, nil
}

// scanError checks the members of the error object at body[v] under the
// envelope's rule (code, message and data at most once, each spelled
// exactly) and returns the index past it. Only an answer with an error
// object pays for it.
func scanError(body []byte, v int) (int, error) {
	var seen [len(errorNames)]bool
	o := open(body, v)
	for more := !o.done; more; {
		key, plain, escaped, ev, err := o.key()
		if err != nil {
			return 0, err
		}
		if _, err := which(key, plain, escaped, errorNames[:], "error.", seen[:]); err != nil {
			return 0, err
		}
		if more, err = o.next(skipValue(body, ev)); err != nil {
			return 0, err
		}
	}
	return o.i, nil
}

// scanContext reads the slot of the context object at body[v] into sh and
// returns the index past it.
func scanContext(body []byte, v int, sh *Shape) (int, error) {
	var seen [len(contextNames)]bool
	o := open(body, v)
	for more := !o.done; more; {
		key, plain, escaped, sv, err := o.key()
		if err != nil {
			return 0, err
		}
		m, err := which(key, plain, escaped, contextNames[:], "result.context.", seen[:])
		if err != nil {
			return 0, err
		}
		if m == 0 {
			sh.Slot, sh.HasSlot = unsigned(body, sv)
		}
		if more, err = o.next(skipValue(body, sv)); err != nil {
			return 0, err
		}
	}
	return o.i, nil
}

// object is a walk over the members of one object of body. It never fails
// a valid object.
type object struct {
	body []byte
	// i is the index of the next key's opening quote or, once done, the
	// index past the object.
	i    int
	done bool
}

// open starts a walk of the object at body[i] ('{').
func open(body []byte, i int) object {
	o := object{body: body, i: skipSpace(body, i+1)}
	if o.i < len(body) && body[o.i] == '}' {
		o.i, o.done = o.i+1, true
	}
	return o
}

// key reads the next member's key: its raw bytes between the quotes,
// whether they are plain ASCII without an escape, whether they hold an
// escape, and the index of the member's value.
func (o *object) key() (key []byte, plain, escaped bool, v int, err error) {
	body, i := o.body, o.i
	if i >= len(body) || body[i] != '"' {
		return nil, false, false, 0, ErrNotJSONRPC
	}
	plain = true
	j := i + 1
	for ; j < len(body) && body[j] != '"'; j++ {
		switch c := body[j]; {
		case c == '\\':
			escaped, plain = true, false
			j++ // the escaped byte, which may be a quote
		case c >= 0x80:
			plain = false
		}
	}
	if j >= len(body) {
		return nil, false, false, 0, ErrNotJSONRPC
	}
	key = body[i+1 : j]
	if j = skipSpace(body, j+1); j >= len(body) || body[j] != ':' {
		return nil, false, false, 0, ErrNotJSONRPC
	}
	if v = skipSpace(body, j+1); v == len(body) {
		return nil, false, false, 0, ErrNotJSONRPC
	}
	return key, plain, escaped, v, nil
}

// next moves past the value that ends before end, reporting whether
// another member follows.
func (o *object) next(end int) (bool, error) {
	i := skipSpace(o.body, end)
	if i >= len(o.body) {
		return false, ErrNotJSONRPC
	}
	switch o.body[i] {
	case '}':
		o.i, o.done = i+1, true
		return false, nil
	case ',':
		o.i = skipSpace(o.body, i+1)
		return true, nil
	}
	return false, ErrNotJSONRPC
}

// which returns the index in names of the member key names, -1 for none,
// marking it in seen. A key that names a member twice, or in another
// spelling encoding/json would take for it (bytes.EqualFold, after
// unescaping), is a *MemberError under path prefix+name. plain and
// escaped are what object.key said of key.
func which(key []byte, plain, escaped bool, names []string, prefix string, seen []bool) (int, error) {
	if plain {
		// The common case, without a call: an exact, first occurrence, or
		// no name of the key's length (folding keeps an ASCII key's). Two
		// names may share a length (the error object's code and data).
		for m, name := range names {
			if len(key) == len(name) && string(key) == name && !seen[m] {
				seen[m] = true
				return m, nil
			}
		}
		if !sameLength(key, names) {
			return -1, nil
		}
	}
	return whichSlow(key, plain, escaped, names, prefix, seen)
}

// sameLength reports whether a name in names is as long as key.
func sameLength(key []byte, names []string) bool {
	for _, name := range names {
		if len(key) == len(name) {
			return true
		}
	}
	return false
}

// whichSlow is which for a key that is not plainly a first occurrence.
func whichSlow(key []byte, plain, escaped bool, names []string, prefix string, seen []bool) (int, error) {
	if escaped {
		var s string
		if json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &s) != nil {
			return -1, ErrNotJSONRPC
		}
		key = []byte(s)
	}
	for m, name := range names {
		switch {
		case plain && len(key) != len(name):
			// Folding keeps an ASCII key's length: it cannot name this.
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
