package retrypolicy

import (
	"fmt"
	"strconv"
)

// enumName returns names[v] when v indexes a non-empty name, else
// "kind(v)": an unknown value still prints, and so still marshals.
func enumName(kind string, names []string, v uint8) string {
	if int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return kind + "(" + strconv.Itoa(int(v)) + ")"
}

// enumParse finds text among names; kind names the type in the error.
func enumParse(kind string, names []string, text []byte) (uint8, error) {
	for i, n := range names {
		if n != "" && n == string(text) {
			return uint8(i), nil
		}
	}
	return 0, fmt.Errorf("retrypolicy: unknown %s %q", kind, text)
}
