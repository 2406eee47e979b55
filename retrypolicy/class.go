package retrypolicy

// Class is how an operation may be retried. The zero Class is unknown and
// prints as "unknown"; Decide treats it as unknown input and stops.
type Class uint8

const (
	// Idempotent operations (reads) may be retried freely.
	Idempotent Class = iota + 1
	// NeverAfterDispatch operations (sendTransaction, requestAirdrop) are
	// never resent once they may have reached a server.
	NeverAfterDispatch
	// NotApplicable operations are never retried automatically.
	NotApplicable
)

var classNames = []string{
	0:                  "unknown",
	Idempotent:         "idempotent",
	NeverAfterDispatch: "never-after-dispatch",
	NotApplicable:      "not-applicable",
}

// String returns the class's kebab-case name ("never-after-dispatch"),
// "unknown" for the zero value and "class(N)" for an unknown value.
func (c Class) String() string { return enumName("class", classNames, c) }

// MarshalText encodes c as its String; it never fails.
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText parses a name written by MarshalText ("unknown" included).
func (c *Class) UnmarshalText(text []byte) error {
	return enumParse(c, "class", classNames, text)
}
