package endpoint

import "strings"

// Problem is one invalid field of a configuration.
type Problem struct {
	// Path names the field the way the configuration document spells it,
	// for example "endpoints[2].roles.send.burst_capacity".
	Path string
	// Message says what is wrong. It never quotes a URL or a header value.
	Message string
}

// String returns "path: message".
func (p Problem) String() string { return p.Path + ": " + p.Message }

// ValidationError lists every problem found at once.
type ValidationError struct {
	Problems []Problem
}

// Error joins every problem, one per line.
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("invalid endpoint configuration:")
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}

// Validate checks every spec and returns a *ValidationError listing every
// problem, or nil. Paths are "endpoints[i]...." where i is the index in specs.
func Validate(specs []Spec) error {
	panic("TODO(pool helper): implement")
}
