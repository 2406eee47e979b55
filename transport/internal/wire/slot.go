package wire

import (
	"bytes"
	"strconv"
)

// ContextSlot returns the slot of a response's result.context.slot, as
// agave's RpcResponseContext carries it ({"result": {"context": {"slot":
// N, ...}, "value": ...}}). It walks the top-level keys and the result's
// keys without decoding values: a context that comes before a large value
// (agave's order) costs a few hundred bytes of scanning. ok is false when
// body holds no such slot: no result object, no context, or a slot that
// is not an unsigned integer.
func ContextSlot(body []byte) (slot uint64, ok bool) {
	i, ok := member(body, skipSpace(body, 0), "result")
	if !ok {
		return 0, false
	}
	if i, ok = member(body, i, "context"); !ok {
		return 0, false
	}
	if i, ok = member(body, i, "slot"); !ok {
		return 0, false
	}
	return unsigned(body, i)
}

// ResultSlot returns a response's result when it is an unsigned integer
// (getSlot's answer).
func ResultSlot(body []byte) (slot uint64, ok bool) {
	i, ok := member(body, skipSpace(body, 0), "result")
	if !ok {
		return 0, false
	}
	return unsigned(body, i)
}

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
