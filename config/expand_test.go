package config

import (
	"slices"
	"testing"
)

func TestExpand(t *testing.T) {
	env := map[string]string{"KEY": "k3y", "EMPTY": "", "NESTED": "${KEY}", "_X1": "x"}
	lookup := func(n string) (string, bool) { v, ok := env[n]; return v, ok }
	tests := []struct {
		name    string
		in      string
		want    string
		missing []string // names of missing variables, in order
		bad     int      // malformed references
	}{
		{name: "no reference", in: "https://a/?k=1", want: "https://a/?k=1"},
		{name: "one", in: "https://a/?k=${KEY}", want: "https://a/?k=k3y"},
		{name: "twice", in: "${KEY}:${KEY}", want: "k3y:k3y"},
		{name: "underscore and digit", in: "${_X1}", want: "x"},
		{name: "empty value", in: "a${EMPTY}b", want: "ab"},
		{name: "not expanded again", in: "${NESTED}", want: "${KEY}"},
		{name: "escape", in: "$${KEY}", want: "${KEY}"},
		{name: "lone dollar", in: "a$b$", want: "a$b$"},
		{name: "dollar brace in escape and ref", in: "$${A}-${KEY}", want: "${A}-k3y"},
		{name: "missing", in: "${NOPE}", missing: []string{"NOPE"}},
		{name: "missing twice reported once", in: "${NOPE}${NOPE}${KEY}${OTHER}", missing: []string{"NOPE", "OTHER"}},
		{name: "unterminated", in: "https://a/${KEY", bad: 1},
		{name: "empty name", in: "${}", bad: 1},
		{name: "bad name", in: "${A-B}", bad: 1},
		{name: "leading digit", in: "${1A}", bad: 1},
		{name: "missing then malformed", in: "${NOPE}${", missing: []string{"NOPE"}, bad: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := expand(tt.in, lookup)
			var missing []string
			bad := 0
			for _, e := range errs {
				if e.Missing == "" {
					bad++
				} else {
					missing = append(missing, e.Missing)
				}
			}
			if !slices.Equal(missing, tt.missing) || bad != tt.bad {
				t.Fatalf("expand(%q) problems: missing %v malformed %d, want %v and %d", tt.in, missing, bad, tt.missing, tt.bad)
			}
			if len(errs) == 0 && got != tt.want {
				t.Fatalf("expand(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if len(errs) > 0 && got != "" {
				t.Fatalf("expand(%q) returned %q with problems; want nothing", tt.in, got)
			}
		})
	}
}
