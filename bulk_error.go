package solroute

import (
	"fmt"
	"strings"
)

// BulkError is the error of a bulk read some of whose inputs were not
// read: the values of the others are in the result all the same. It
// unwraps to each range's cause, so errors.Is(err, ErrDeadline) and
// errors.As(err, &callErr) (*transport.CallError, which names the
// endpoints and attempts) reach them.
type BulkError struct {
	// Method is the JSON-RPC method of the chunks (getMultipleAccounts,
	// getSignatureStatuses, getTransaction).
	Method string
	// Inputs is how many inputs the call was given.
	Inputs int
	// Failed are the ranges of inputs left nil, in input order, each with
	// its cause.
	Failed []BulkChunk
}

// BulkChunk is a range of a bulk read's inputs that was not read: one
// chunk that failed, or several neighbours that failed for one cause
// (the caller's context ended; the first chunks, which set the floor,
// failed and the rest was not sent).
type BulkChunk struct {
	// Start and End bound the range: inputs Start..End-1.
	Start, End int
	// Err is why: for a chunk sent, a *transport.CallError.
	Err error
}

// bulkErrorShown is how many ranges BulkError's message names.
const bulkErrorShown = 3

// Error returns "solroute: getMultipleAccounts: 200 of 1000000 inputs
// not read: inputs 0-99: CAUSE; ...", naming the first three ranges and
// how many more there are.
func (e *BulkError) Error() string {
	missing := 0
	for _, f := range e.Failed {
		missing += f.End - f.Start
	}
	var b strings.Builder
	fmt.Fprintf(&b, "solroute: %s: %d of %d inputs not read", e.Method, missing, e.Inputs)
	for i, f := range e.Failed {
		if i == bulkErrorShown {
			fmt.Fprintf(&b, "; and %d more ranges", len(e.Failed)-i)
			break
		}
		fmt.Fprintf(&b, "; inputs %d-%d: %v", f.Start, f.End-1, f.Err)
	}
	return b.String()
}

// Unwrap returns each range's cause.
func (e *BulkError) Unwrap() []error {
	errs := make([]error, len(e.Failed))
	for i, f := range e.Failed {
		errs[i] = f.Err
	}
	return errs
}

// unsentError is the cause of the inputs a floored bulk read did not
// send: the first chunks, which were to set the floor, all failed.
type unsentError struct {
	method string
	pilots int
	cause  error
}

func (e *unsentError) Error() string {
	return fmt.Sprintf("not sent: the first %d %s chunks, which set the floor, failed (last: %v)", e.pilots, e.method, e.cause)
}

func (e *unsentError) Unwrap() error { return e.cause }
