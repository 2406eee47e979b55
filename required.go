package solroute

import (
	"encoding/json"
	"errors"
)

// errNullResult is why a typed call refuses a JSON null result: none of the
// four methods may answer null, so a node that does is answering wrongly.
var errNullResult = errors.New("solroute: the result is null")

// required is a decode target that refuses a JSON null. encoding/json hands
// a null to UnmarshalJSON, so the transport classifies the refusal as an
// invalid response (*transport.CallError) instead of leaving a nil pointer
// for the caller to trip on.
type required[T any] struct{ v T }

// UnmarshalJSON decodes b into the value, refusing null.
func (r *required[T]) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return errNullResult
	}
	return json.Unmarshal(b, &r.v)
}

// Target is the value itself, for the one-pass decode of a result that is
// present and not null (the only results it is used for), where the null
// check has nothing to refuse.
func (r *required[T]) Target() any { return &r.v }
