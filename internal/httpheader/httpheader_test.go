package httpheader

import "testing"

// TestValidNameAndValue: header names are RFC 9110 tokens; values hold
// no control character but a tab.
func TestValidNameAndValue(t *testing.T) {
	for name, want := range map[string]bool{"Authorization": true, "X-Api-Key": true, "a!#$%&'*+-.^_`|~9": true,
		"": false, "Bad Header": false, "x:y": false, "é": false} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
	for value, want := range map[string]bool{"Bearer abc": true, "a\tb": true, "": true, "ünïcode": true,
		"a\nb": false, "a\rb": false, "a\x00b": false, "a\x7fb": false} {
		if got := ValidValue(value); got != want {
			t.Errorf("ValidValue(%q) = %v, want %v", value, got, want)
		}
	}
}

func TestShownName(t *testing.T) {
	for in, want := range map[string]string{
		"Authorization":                "Authorization",
		"Authorization: Bearer KEY123": "Authorization…",
		"Bad Name":                     "Bad Name", // no colon: a typo, shown whole
		": KEY123":                     "…",
	} {
		if got := ShownName(in); got != want {
			t.Errorf("ShownName(%q) = %q, want %q", in, got, want)
		}
	}
}
