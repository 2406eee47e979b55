package cliflag

import (
	"errors"
	"strings"
	"testing"
)

// TestValueErrorsSayWhatIsExpected: a value its flag cannot parse is
// named with what the flag wants, by the flag's kind, never package
// flag's bare "parse error" (issue 21: "--duration 5" said only that).
func TestValueErrorsSayWhatIsExpected(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--timeout", "5"}, "--timeout: 5 is not a duration: write 5s (a number and a unit: ms, s, m or h)"},
		{[]string{"--timeout=1.5"}, "--timeout: 1.5 is not a duration: write 1.5s (a number and a unit: ms, s, m or h)"},
		{[]string{"--timeout", "5 s"}, `--timeout: "5 s" is not a duration: write a number and a unit, such as 5s, 1.5s, 500ms or 2m`},
		{[]string{"--seed", "-3"}, "--seed: -3 is negative: write a whole number, 0 or more"},
		{[]string{"--seed", "1.5"}, "--seed: 1.5 is not a whole number"},
		{[]string{"--seed", "seven"}, "--seed: seven is not a whole number"},
		{[]string{"--seed", "99999999999999999999"}, "--seed: 99999999999999999999 is too large: at most 18446744073709551615"},
		{[]string{"--count", "x"}, "--count: x is not a whole number"},
		{[]string{"--count", "-99999999999999999999"},
			"--count: -99999999999999999999 is out of range: a whole number from -9223372036854775808 to 9223372036854775807"},
		{[]string{"--ratio", "half"}, "--ratio: half is not a number"},
		{[]string{"--json=yes please"}, `--json: "yes please" is not true or false: write --json alone, or --json=false`},
		{[]string{"--timeout", "5\n--json"}, `--timeout: "5\n--json" is not a duration: write a number and a unit, such as 5s, 1.5s, 500ms or 2m`},
		{[]string{"--timeout="}, `--timeout: "" is not a duration: write a number and a unit, such as 5s, 1.5s, 500ms or 2m`},
	}
	for _, tt := range tests {
		s := newTestSet()
		s.Int("count", 0, "`N` things")
		s.Float64("ratio", 0, "a `R`")
		_, err := s.Parse(tt.args)
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Errorf("Parse(%q) = %v, want a *UsageError", tt.args, err)
			continue
		}
		if ue.Error() != tt.want {
			t.Errorf("Parse(%q) = %q, want %q", tt.args, ue.Error(), tt.want)
		}
		if strings.Contains(ue.Error(), "parse error") || strings.Contains(ue.Error(), "\n") {
			t.Errorf("Parse(%q) = %q: package flag's text, or more than one line", tt.args, ue.Error())
		}
	}
}

// A flag of a kind the package does not know keeps its own error's text.
func TestValueErrorOfAnotherKind(t *testing.T) {
	s := newTestSet()
	s.Func("cluster", "a `NAME`", func(string) error { return errors.New("want mainnet-beta, devnet or testnet") })
	_, err := s.Parse([]string{"--cluster", "moon"})
	want := "invalid value moon for flag --cluster: want mainnet-beta, devnet or testnet"
	if err == nil || err.Error() != want {
		t.Fatalf("Parse = %v, want %q", err, want)
	}
}
