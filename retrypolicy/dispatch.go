package retrypolicy

// DispatchState is what is proven about whether a request reached a server.
// The zero DispatchState is unknown and prints as "unknown"; Decide treats
// it as unknown input and stops.
type DispatchState uint8

const (
	// NotDispatched: proven that no byte of the request was written.
	NotDispatched DispatchState = iota + 1
	// MaybeDispatched: some or all of the request was written and no
	// answer came; the server may have acted.
	MaybeDispatched
	// Answered: a response (status line) arrived.
	Answered
)

var dispatchNames = []string{
	0:               "unknown",
	NotDispatched:   "not-dispatched",
	MaybeDispatched: "maybe-dispatched",
	Answered:        "answered",
}

// String returns the state's kebab-case name ("maybe-dispatched"),
// "unknown" for the zero value and "dispatch(N)" for an unknown value.
func (d DispatchState) String() string { return enumName("dispatch", dispatchNames, d) }

// MarshalText encodes d as its String; it never fails.
func (d DispatchState) MarshalText() ([]byte, error) { return []byte(d.String()), nil }
