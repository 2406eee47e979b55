package wire

import (
	"bytes"
	"strconv"
)

// member returns the index of the value of key in the object starting at
// body[i], matching the key exactly. ok is false when body[i] is not an
// object or the key is absent.
func member(body []byte, i int, key string) (int, bool) {
	if i >= len(body) || body[i] != '{' {
		return 0, false
	}
	for i = skipSpace(body, i+1); i < len(body) && body[i] == '"'; {
		end := skipString(body, i+1)
		name := body[i+1 : max(end-1, i+1)]
		i = skipSpace(body, end)
		if i >= len(body) || body[i] != ':' {
			return 0, false
		}
		i = skipSpace(body, i+1)
		if string(name) == key {
			return i, i < len(body)
		}
		if i = skipSpace(body, skipValue(body, i)); i >= len(body) || body[i] != ',' {
			return 0, false
		}
		i = skipSpace(body, i+1)
	}
	return 0, false
}

// unsigned parses the unsigned integer starting at body[i], which must end
// at a delimiter.
func unsigned(body []byte, i int) (uint64, bool) {
	j := i
	for j < len(body) && body[j] >= '0' && body[j] <= '9' {
		j++
	}
	if j == i || (j < len(body) && !delimiter(body[j])) || (body[i] == '0' && j-i > 1) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(body[i:j]), 10, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// ErrorContextSlot returns the contextSlot of a -32016 error's data
// ({"contextSlot": N}): the slot the node's bank was at when it refused.
func ErrorContextSlot(data []byte) (uint64, bool) {
	data = bytes.TrimSpace(data)
	i, ok := member(data, 0, "contextSlot")
	if !ok {
		return 0, false
	}
	return unsigned(data, i)
}

// WithMinContextSlot returns body, a request EncodeRequest made (and
// which the caller no longer uses: the result may share its array), whose params element at index i carries "minContextSlot": slot:
// added to the object there (or put in place of the value of its own
// "minContextSlot"), put in place of a null there, or appended as
// a new object when params has exactly i elements (params itself added
// when absent and i is 0). ok is false (and body is returned as is) for
// anything else: fewer than i elements, or a value at i that is not an object or null. Splicing the
// encoded bytes spares re-encoding the caller's params with a copied map.
func WithMinContextSlot(body []byte, i int, slot uint64) (out []byte, ok bool) {
	start := skipSpace(body, 0)
	p, ok := member(body, start, "params")
	if !ok && i == 0 && start < len(body) && body[start] == '{' {
		// No params at all (EncodeRequest leaves empty ones out): add them
		// before the object's end.
		end := skipValue(body, start) - 1
		if end <= start || body[end] != '}' {
			return body, false
		}
		var buf [64]byte
		ins := appendMinContextSlot(append(buf[:0], `,"params":[{`...), slot)
		return splice(body, end, end, append(ins, '}', ']')), true
	}
	if !ok || p >= len(body) || body[p] != '[' {
		return body, false
	}
	at := skipSpace(body, p+1)
	for n := 0; ; n++ {
		if at >= len(body) {
			return body, false
		}
		if body[at] == ']' { // the array ends before index i
			if n != i {
				return body, false
			}
			var buf [64]byte
			ins := buf[:0]
			if n > 0 {
				ins = append(ins, ',')
			}
			ins = appendMinContextSlot(append(ins, '{'), slot)
			return splice(body, at, at, append(ins, '}')), true
		}
		if n == i {
			switch body[at] {
			case '{':
				return intoObject(body, at, slot), true
			case 'n':
				if end := skipValue(body, at); string(body[at:end]) == "null" {
					var buf [64]byte
					return splice(body, at, end, append(appendMinContextSlot(append(buf[:0], '{'), slot), '}')), true
				}
			}
			return body, false
		}
		at = skipSpace(body, skipValue(body, at))
		if at < len(body) && body[at] == ',' {
			at = skipSpace(body, at+1)
		}
	}
}

// intoObject gives the object at body[at] "minContextSlot": slot: in
// place of the value of its own "minContextSlot" when it has one (asked
// for already, a 0 the plan reads as unset), so that the object never
// holds the key twice (a strict parser refuses that, and one that keeps
// the last member, serde_json's Value under agave's JSON-RPC params, reads
// the 0 and loses the floor); as its first member otherwise.
func intoObject(body []byte, at int, slot uint64) []byte {
	if v, ok := member(body, at, "minContextSlot"); ok {
		var buf [24]byte
		return splice(body, v, skipValue(body, v), strconv.AppendUint(buf[:0], slot, 10))
	}
	var buf [64]byte
	ins := appendMinContextSlot(buf[:0], slot)
	if next := skipSpace(body, at+1); next < len(body) && body[next] != '}' {
		ins = append(ins, ',')
	}
	return splice(body, at+1, at+1, ins)
}

// appendMinContextSlot appends "minContextSlot":slot.
func appendMinContextSlot(dst []byte, slot uint64) []byte {
	dst = append(dst, `"minContextSlot":`...)
	return strconv.AppendUint(dst, slot, 10)
}

// splice returns body with body[from:to] replaced by ins: in body's own
// array when its capacity allows (EncodeRequest leaves room), in a new
// slice otherwise.
func splice(body []byte, from, to int, ins []byte) []byte {
	n := len(body) - (to - from) + len(ins)
	if n <= cap(body) {
		out := body[:n]
		copy(out[from+len(ins):], body[to:])
		copy(out[from:], ins)
		return out
	}
	out := make([]byte, 0, n)
	out = append(out, body[:from]...)
	out = append(out, ins...)
	return append(out, body[to:]...)
}
