package retrypolicy

import (
	"fmt"
	"strconv"
)

// The enums of this package (Cause, Class, DispatchState, Rule) share one
// text form: a table of kebab-case names indexed by value, an empty entry
// meaning no name. String and MarshalText write the name, UnmarshalText
// reads it back.

// enumName returns names[v] when v indexes a non-empty name, else
// "kind(v)": an unknown value still prints, and so still marshals.
func enumName[T ~uint8](kind string, names []string, v T) string {
	if int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return kind + "(" + strconv.Itoa(int(v)) + ")"
}

// enumParse sets *v to the value whose name is text; kind names the type
// in the error, and *v is left alone on one.
func enumParse[T ~uint8](v *T, kind string, names []string, text []byte) error {
	for i, n := range names {
		if n != "" && n == string(text) {
			*v = T(i)
			return nil
		}
	}
	return fmt.Errorf("retrypolicy: unknown %s %q", kind, text)
}
